"""The batched Atari env equals a sync vector of single envs preprocessed the same way.

:class:`AtariVectorEnv` steps ale-py's C++ vector core; :class:`AtariVectorPreprocessing`
does the same preprocessing on one palaestra ``AtariEnv`` in Python. Same seeds and actions
must give the same observations, rewards, flags and infos bit for bit, in every autoreset
mode; and, given the emulator seeds, the same as ale-py's own ``AtariVectorEnv``.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from ale_py.vector_env import AtariVectorEnv as AlePyVectorEnv

import palaestra
from palaestra.envs.atari.preprocessing import (
    CppNoopGenerator,
    preprocessed_atari_env,
    sub_env_seed,
)
from palaestra.envs.atari.vector import AtariVectorEnv
from palaestra.vector import SyncVectorEnv
from palaestra.vector.contract import VectorEnvContract, assert_same, rollout, sample_actions

MODES = ("NextStep", "SameStep", "Disabled")
# A short frame budget, so that episodes end (and restart) within a short rollout.
SHORT = {"max_num_frames_per_episode": 200}


def batch_and_sync(game: str, num_envs: int, mode: str, **options: Any) -> tuple[Any, Any]:
    """The batched env and the sync vector of its single-env twin, with the same options."""
    batch = AtariVectorEnv(game, num_envs, autoreset_mode=mode, num_threads=2, **options)
    sync = SyncVectorEnv(
        [lambda: preprocessed_atari_env(game, **options)] * num_envs, autoreset_mode=mode
    )
    return batch, sync


def assert_same_rollouts(game: str, mode: str, steps: int, num_envs: int = 3, **options: Any):
    """Play the same seeded actions on both; assert every result equal; return the ends."""
    batch, sync = batch_and_sync(game, num_envs, mode, **options)
    try:
        actions = sample_actions(batch.action_space, steps, seed=1)
        ours = rollout(batch, actions, seed=3)
        assert_same(ours, rollout(sync, actions, seed=3), key_order=False)
    finally:
        batch.close()
        sync.close()
    return sum(int(np.sum(item[2] | item[3])) for item in ours if len(item) == 5)


@pytest.mark.parametrize("mode", MODES)
def test_the_batch_equals_the_sync_vector_through_episode_ends_with_sticky_actions(mode):
    ends = assert_same_rollouts("breakout", mode, 120, repeat_action_probability=0.25, **SHORT)

    assert ends >= 3


@pytest.mark.parametrize(
    ("game", "options"),
    [
        ("breakout", {"episodic_life": True}),
        ("pong", {"reward_clipping": False, "noop_max": 0}),
        ("space_invaders", {"grayscale": False, "stack_num": 2, "use_fire_reset": False}),
        ("freeway", {"img_height": 210, "img_width": 160, "maxpool": False}),
        ("breakout", {"frameskip": 3, "max_episode_steps": 40, "full_action_space": True}),
        ("breakout", {"continuous": True, **SHORT}),
    ],
    ids=["episodic-life", "unclipped", "rgb-stack2", "full-size", "frameskip3", "continuous"],
)
def test_the_batch_equals_the_sync_vector_with_other_preprocessing(game, options):
    assert_same_rollouts(game, "NextStep", 80, num_envs=2, **options)


@pytest.mark.slow
@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("game", ["pong", "breakout", "ms_pacman", "seaquest"])
def test_the_batch_equals_the_sync_vector_for_long_runs(game, mode):
    assert_same_rollouts(game, mode, 600, num_envs=4, episodic_life=True)


def test_the_batch_equals_ale_pys_vector_env_given_the_same_emulator_seeds():
    ours = AtariVectorEnv("breakout", 3, repeat_action_probability=0.25, **SHORT)
    theirs = AlePyVectorEnv("breakout", 3, repeat_action_probability=0.25, **SHORT)
    try:
        observations, info = ours.reset(seed=5)
        emulator_seeds = np.array([sub_env_seed(5 + i) for i in range(3)])
        expected, their_info = theirs.reset(seed=emulator_seeds)
        np.testing.assert_array_equal(observations, expected)
        np.testing.assert_array_equal(info["frame_number"], their_info["frame_number"])
        actions = sample_actions(ours.action_space, 100, seed=2)
        for action in actions:
            mine, reference = ours.step(action), theirs.step(action)
            for got, want in zip(mine[:4], reference[:4], strict=True):
                np.testing.assert_array_equal(got, want)
            for key in ("lives", "frame_number", "episode_frame_number"):
                np.testing.assert_array_equal(mine[4][key], reference[4][key])
    finally:
        ours.close()
        theirs.close()


def test_make_vec_builds_the_batch_for_every_v5_id():
    v5 = [spec for spec in palaestra.registry.values() if spec.id.startswith("ALE/")]

    assert len(v5) == 104
    assert {spec.vector_entry_point for spec in v5} == {
        "palaestra.envs.atari.vector:AtariVectorEnv"
    }


def test_make_vec_gives_cnn_ready_frames_and_the_ids_sticky_actions():
    envs = palaestra.make_vec("ALE/Pong-v5", 8)
    try:
        observations, _ = envs.reset(seed=0)
        assert isinstance(envs, AtariVectorEnv)
        assert (observations.shape, observations.dtype) == ((8, 4, 84, 84), np.uint8)
        assert envs.observation_space.shape == (8, 4, 84, 84)
        assert envs.single_action_space == palaestra.spaces.Discrete(6)
    finally:
        envs.close()
    twin = preprocessed_atari_env("pong", repeat_action_probability=0.25)
    batch = palaestra.make_vec("ALE/Pong-v5", 1)
    actions = sample_actions(batch.action_space, 60, seed=0)
    assert_same(rollout(batch, actions), rollout(SyncVectorEnv([lambda: twin]), actions),
                key_order=False)  # fmt: skip
    batch.close()


def test_the_first_observation_stacks_zeros_behind_the_screen():
    envs = AtariVectorEnv("breakout", 2)
    observations, _ = envs.reset(seed=1)
    envs.close()

    assert not observations[:, :3].any()
    assert observations[:, 3].any()


def test_seed_zero_seeds_every_sub_env_reproducibly():
    # ale-py's own vector env hands seed 0 to the emulator, whose check takes it as "unseeded".
    first, second = AtariVectorEnv("breakout", 2), AtariVectorEnv("breakout", 2)
    one, two = first.reset(seed=0), second.reset(seed=0)
    first.close()
    second.close()

    assert_same(one, two)


def test_different_seeds_give_different_starts():
    envs = AtariVectorEnv("breakout", 4)
    _, info = envs.reset(seed=[10, 11, 12, 13])
    envs.close()

    assert len(set(info["episode_frame_number"].tolist())) > 1


def test_send_then_recv_equals_step():
    stepped, sent = AtariVectorEnv("pong", 2, **SHORT), AtariVectorEnv("pong", 2, **SHORT)
    stepped.reset(seed=4)
    sent.reset(seed=4)
    for action in sample_actions(stepped.action_space, 60, seed=4):
        sent.send(action)
        assert_same(sent.recv(), stepped.step(action))
    stepped.close()
    sent.close()


def test_a_second_send_before_recv_is_refused():
    envs = AtariVectorEnv("pong", 2)
    envs.reset(seed=0)
    envs.send(np.zeros(2, dtype=np.int64))

    with pytest.raises(palaestra.error.ResetNeeded, match="call recv"):
        envs.send(np.zeros(2, dtype=np.int64))
    envs.close()


@pytest.mark.parametrize("mode", MODES)
def test_a_masked_reset_equals_the_sync_vectors(mode):
    batch, sync = batch_and_sync("breakout", 3, mode)
    mask = np.array([False, True, True])
    actions = sample_actions(batch.action_space, 20, seed=9)
    for envs in (batch, sync):
        envs.reset(seed=2)
        for action in actions[:10]:
            envs.step(action)
    assert_same(batch.reset(seed=7, options={"reset_mask": mask}),
                sync.reset(seed=7, options={"reset_mask": mask}))  # fmt: skip
    for action in actions[10:]:
        assert_same(batch.step(action), sync.step(action), key_order=False)
    batch.close()
    sync.close()


def test_the_first_reset_must_reset_every_sub_env():
    envs = AtariVectorEnv("pong", 2)

    with pytest.raises(ValueError, match="must reset every sub-environment"):
        envs.reset(options={"reset_mask": np.array([True, False])})
    envs.close()


def test_a_life_lost_with_life_loss_info_terminates_without_restarting_under_next_step():
    # ale-py's option: a termination signal for the learner while the game goes on (a sync
    # vector of single envs would restart there, so this is the one documented difference).
    envs = AtariVectorEnv("breakout", 1, life_loss_info=True)
    envs.reset(seed=0)
    noop = np.zeros(1, dtype=np.int64)
    for _ in range(400):
        _, _, terminated, _, info = envs.step(noop)
        if terminated[0]:
            break
    _, _, terminated_after, _, after = envs.step(noop)
    envs.close()

    assert terminated[0] and not terminated_after[0]
    assert info["lives"][0] == after["lives"][0] == 4
    assert after["episode_frame_number"][0] == info["episode_frame_number"][0] + 4


def test_the_noop_generator_draws_libstdcpps_uniform_ints_from_mt19937():
    # The first draws of std::uniform_int_distribution<int>(0, 29) on std::mt19937(5), as
    # ale-py's C++ core takes them (seen as its no-op counts).
    noops = CppNoopGenerator(30)
    noops.seed(5)

    assert [noops.draw() for _ in range(5)] == [6, 1, 26, 24, 6]


def test_get_action_meanings_is_the_single_envs():
    envs = AtariVectorEnv("breakout", 2)

    assert envs.call("get_action_meanings") == (["NOOP", "FIRE", "RIGHT", "LEFT"],) * 2
    single = palaestra.make("ALE/Breakout-v5")
    assert envs.get_action_meanings() == single.unwrapped.get_action_meanings()
    envs.close()
    single.close()


def test_the_game_cannot_be_set_per_sub_env():
    envs = AtariVectorEnv("pong", 2)

    with pytest.raises(AttributeError, match="share 'game'"):
        envs.set_attr("game", "breakout")
    envs.close()


# Episodes of 20 steps, so that the contract's 40-step rollouts see them end.
CONTRACT = {"max_num_frames_per_episode": 80}


class TestNextStepContract(VectorEnvContract):
    mode = "NextStep"

    def make_env(self):
        return AtariVectorEnv("breakout", 2, autoreset_mode=self.mode, num_threads=2, **CONTRACT)

    def make_reference(self):
        return SyncVectorEnv(
            [lambda: preprocessed_atari_env("breakout", **CONTRACT)] * 2, autoreset_mode=self.mode
        )


class TestSameStepContract(TestNextStepContract):
    mode = "SameStep"


class TestDisabledContract(TestNextStepContract):
    mode = "Disabled"
