"""AtariEnv's surface beside ale-py's: spaces, actions, keys, seeding, states, pickling."""

from __future__ import annotations

import pickle

import ale_py.env
import numpy as np
import pytest

import palaestra
from palaestra.envs.atari import AtariEnv
from palaestra.utils.env_checker import check_env
from tests.envs.atari.conftest import assert_same

SPACE_OPTIONS = [
    {},
    {"obs_type": "grayscale"},
    {"obs_type": "ram"},
    {"full_action_space": True},
    {"continuous": True},
    {"sound_obs": True},
]


def spaces_of(env):
    return repr(env.observation_space), repr(env.action_space)


@pytest.mark.parametrize("options", SPACE_OPTIONS, ids=lambda o: ",".join(o) or "default")
def test_spaces_are_ale_pys(options):
    ours, theirs = AtariEnv("pong", **options), ale_py.env.AtariEnv("pong", **options)

    assert spaces_of(ours) == spaces_of(theirs)
    assert ours.get_action_meanings() == theirs.get_action_meanings()


@pytest.mark.parametrize("game", ["pong", "breakout", "ms_pacman"])
def test_keys_to_action_are_ale_pys(game):
    expected = ale_py.env.AtariEnv(game).get_keys_to_action()

    assert AtariEnv(game).get_keys_to_action() == expected


def test_continuous_envs_have_no_keys_to_action():
    with pytest.raises(AttributeError, match="continuous=True"):
        AtariEnv("pong", continuous=True).get_keys_to_action()


def test_metadata_is_ale_pys():
    assert AtariEnv.metadata == ale_py.env.AtariEnv.metadata


def test_a_seeded_reset_reports_ale_pys_seeds_and_keeps_np_random_seed():
    ours, theirs = AtariEnv("pong"), ale_py.env.AtariEnv("pong")

    assert_same(ours.reset(seed=42)[1], theirs.reset(seed=42)[1])
    assert ours.np_random_seed == theirs.np_random_seed == 42
    assert "seeds" not in ours.reset()[1]


def test_the_frame_skip_generator_is_ale_pys_after_a_seeded_reset():
    ours, theirs = AtariEnv("pong"), ale_py.env.AtariEnv("pong")
    ours.reset(seed=5)
    theirs.reset(seed=5)

    assert ours.np_random.integers(2**32) == theirs.np_random.integers(2**32)


def test_restoring_a_cloned_state_replays_the_same_frames():
    env = AtariEnv("breakout", repeat_action_probability=0.0)
    env.reset(seed=0)
    state = env.clone_state()
    first = [env.step(action)[0] for action in (1, 2, 2, 3)]
    env.restore_state(state)
    again = [env.step(action)[0] for action in (1, 2, 2, 3)]

    np.testing.assert_array_equal(first, again)


def replays_after_restoring(env, include_rng):
    """Clone, play, restore, play again twice: the three runs' observations."""
    env.reset(seed=0)
    state = env.clone_state(include_rng=include_rng)
    runs = []
    for _ in range(3):
        runs.append([env.step(action)[0] for action in (1, 2, 3, 2, 3, 2)])
        env.restore_state(state)
    return np.array(runs)


@pytest.mark.parametrize("include_rng", [False, True])
def test_restoring_with_sticky_actions_replays_as_ale_py_does(include_rng):
    # ALE does not restore the last action a sticky frame repeats: the first replay can differ
    # from the original run, as in ale-py; with the RNG, later replays repeat each other.
    ours = replays_after_restoring(AtariEnv("breakout", repeat_action_probability=0.5), include_rng)
    theirs = replays_after_restoring(
        ale_py.env.AtariEnv("breakout", repeat_action_probability=0.5), include_rng
    )

    np.testing.assert_array_equal(ours, theirs)
    if include_rng:
        np.testing.assert_array_equal(ours[1], ours[2])


def test_states_move_between_palaestra_and_ale_py_envs():
    ours, theirs = AtariEnv("pong"), ale_py.env.AtariEnv("pong")
    ours.reset(seed=1)
    theirs.reset(seed=1)
    for action in (2, 2, 3, 1):
        theirs.step(action)
    ours.restore_state(theirs.clone_state(include_rng=True))

    for action in (3, 3, 2, 0, 1):
        assert_same(ours.step(action), theirs.step(action))


def test_pickling_rebuilds_the_env_with_its_arguments():
    env = AtariEnv("breakout", obs_type="ram", frameskip=(2, 6), full_action_space=True)
    copy = pickle.loads(pickle.dumps(env))

    assert spaces_of(copy) == spaces_of(env)
    assert copy._frameskip == (2, 6)
    assert_same(copy.reset(seed=3), env.reset(seed=3))


def test_render_without_a_render_mode_raises_ale_pys_error():
    with pytest.raises(palaestra.error.Error) as ours:
        AtariEnv("pong").render()
    with pytest.raises(Exception) as theirs:
        ale_py.env.AtariEnv("pong").render()

    assert str(theirs.value) in str(ours.value)


def test_the_env_passes_check_env():
    check_env(AtariEnv("pong", obs_type="ram"), skip_render_check=True)
