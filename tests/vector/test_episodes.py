"""The episode semantics module: the stepper, the mode reader and the masks helper."""

import gymnasium
import numpy as np
import pytest

import palaestra
from palaestra.vector import AutoresetMode, VectorEnv
from palaestra.vector.episodes import (
    EpisodeMasks,
    StepMasks,
    SubEnvStepper,
    autoreset_mode,
    time_limit_reached,
)
from palaestra.vector.vector_env import add_info
from tests.fixtures.counting_env import make_counting_env
from tests.vector.helpers import assert_same

MODES = list(AutoresetMode)


def counting_stepper(mode, terminate_at=2):
    return SubEnvStepper(make_counting_env(palaestra, terminate_at=terminate_at), mode)


def stepper_rollout(mode, steps):
    stepper = counting_stepper(mode)
    stepper.reset(seed=0)
    return [stepper.step(1) for _ in range(steps)]


def gymnasium_rollout(mode, steps):
    envs = gymnasium.vector.SyncVectorEnv(
        [lambda: make_counting_env(gymnasium, terminate_at=2)],
        autoreset_mode=gymnasium.vector.AutoresetMode(mode.value),
    )
    envs.reset(seed=0)
    return [envs.step(np.array([1])) for _ in range(steps)]


def batched(result):
    """One stepper result as a vector env with one sub-env returns it."""
    obs, reward, terminated, truncated, info = result
    return (
        np.array([obs]),
        np.array([reward], dtype=np.float64),
        np.array([terminated]),
        np.array([truncated]),
        add_info({}, info, 0, 1),
    )


def plain(results):
    out = []
    for obs, reward, terminated, truncated, info in results:
        info = dict(info)
        if "final_obs" in info:
            info["final_obs"] = np.asarray(info["final_obs"]).tolist()
        out.append((np.asarray(obs).tolist(), float(reward), terminated, truncated, info))
    return out


@pytest.mark.parametrize("mode", [AutoresetMode.NEXT_STEP, AutoresetMode.SAME_STEP])
def test_stepper_matches_gymnasium_sync_vector_env(mode):
    theirs = gymnasium_rollout(mode, 5)
    for step, (ours, reference) in enumerate(zip(stepper_rollout(mode, 5), theirs, strict=True)):
        assert_same(batched(ours), reference, f"step {step}")


def test_next_step_reset_step_ignores_the_action_and_returns_the_reset():
    assert plain(stepper_rollout(AutoresetMode.NEXT_STEP, 3))[-1] == (
        [0],
        0.0,
        False,
        False,
        {"reset": True},
    )


def test_same_step_ending_step_returns_the_new_episode_with_final_obs_and_info():
    obs, reward, terminated, truncated, info = stepper_rollout(AutoresetMode.SAME_STEP, 2)[-1]
    assert (obs.tolist(), reward, terminated, truncated) == ([0], 1.5, True, False)
    assert info["final_obs"].tolist() == [2]
    assert info["final_info"] == {"count": 2}
    assert info["reset"] is True


def test_disabled_step_after_the_end_raises_naming_the_sub_env():
    stepper = SubEnvStepper(make_counting_env(palaestra, terminate_at=1), "Disabled", index=3)
    stepper.reset(seed=0)
    stepper.step(1)
    with pytest.raises(RuntimeError, match=r"Sub-environments \[3\] were stepped after"):
        stepper.step(1)


def test_disabled_reset_allows_stepping_again():
    stepper = SubEnvStepper(make_counting_env(palaestra, terminate_at=1), "Disabled")
    stepper.reset(seed=0)
    stepper.step(1)
    stepper.reset()
    assert stepper.step(1)[0].tolist() == [1]


def test_truncation_by_time_limit_autoresets_like_termination():
    env = palaestra.wrappers.TimeLimit(make_counting_env(palaestra, terminate_at=99), 2)
    stepper = SubEnvStepper(env, AutoresetMode.NEXT_STEP)
    stepper.reset(seed=0)
    flags = [stepper.step(0)[2:4] for _ in range(3)]
    assert flags == [(False, False), (False, True), (False, False)]
    assert env._elapsed_steps == 0


@pytest.mark.parametrize(
    ("mode", "pending"),
    [(AutoresetMode.NEXT_STEP, True), (AutoresetMode.SAME_STEP, False), ("Disabled", True)],
)
def test_end_episode_leaves_a_reset_pending_except_in_same_step(mode, pending):
    stepper = counting_stepper(mode)
    stepper.reset(seed=0)
    stepper.end_episode()
    assert stepper.needs_reset is pending


def test_stepper_rejects_an_unknown_mode():
    with pytest.raises(ValueError, match="'Sometimes' is not a valid AutoresetMode"):
        counting_stepper("Sometimes")


def test_time_limit_reached_at_the_limit():
    assert time_limit_reached(np.array([1, 2, 3]), 2).tolist() == [False, True, True]


class Declared(VectorEnv):
    num_envs = 2

    def __init__(self, metadata):
        self.metadata = metadata


@pytest.mark.parametrize("mode", MODES)
def test_autoreset_mode_reads_the_declared_mode(mode):
    assert autoreset_mode(Declared({"autoreset_mode": mode})) is mode


def test_autoreset_mode_reads_through_wrappers():
    inner = Declared({"autoreset_mode": AutoresetMode.DISABLED})
    assert autoreset_mode(palaestra.vector.VectorWrapper(inner)) is AutoresetMode.DISABLED


def test_autoreset_mode_defaults_to_next_step_with_a_warning():
    with pytest.warns(UserWarning, match=r"Declared\(num_envs=2\)\) is missing `autoreset_mode`"):
        assert autoreset_mode(Declared({})) is AutoresetMode.NEXT_STEP


def test_autoreset_mode_rejects_a_string():
    with pytest.raises(
        TypeError, match=r"to be an AutoresetMode, got <class 'str'> \('SameStep'\)"
    ):
        autoreset_mode(Declared({"autoreset_mode": "SameStep"}))


def flags(*rows):
    return np.array(rows, dtype=bool)


NO = flags(False, False)


def masks_after(mode, *steps):
    masks = EpisodeMasks(2, mode)
    masks.reset()
    return [masks.step(terminations, truncations) for terminations, truncations in steps]


def as_lists(masks: StepMasks):
    return masks.starts.tolist(), masks.valid.tolist(), masks.ends.tolist()


def test_masks_next_step_the_step_after_an_end_starts_and_does_not_count():
    ending, following = masks_after("NextStep", (flags(True, False), NO), (NO, flags(False, True)))
    assert as_lists(ending) == ([False, False], [True, True], [True, False])
    assert as_lists(following) == ([True, False], [False, True], [False, True])


def test_masks_same_step_the_ending_step_starts_and_everything_counts():
    ending, following = masks_after("SameStep", (flags(True, False), NO), (NO, NO))
    assert as_lists(ending) == ([True, False], [True, True], [True, False])
    assert as_lists(following) == ([False, False], [True, True], [False, False])


def test_masks_disabled_steps_never_start_episodes():
    (ending,) = masks_after("Disabled", (NO, flags(True, False)))
    assert as_lists(ending) == ([False, False], [True, True], [True, False])


def test_masks_partial_reset_clears_only_the_masked_rows():
    masks = EpisodeMasks(2, "NextStep")
    masks.reset()
    masks.step(flags(True, True), NO)
    masks.reset(flags(True, False))
    assert as_lists(masks.step(NO, NO)) == ([False, True], [True, False], [False, False])


def test_masks_of_reads_the_env():
    envs = palaestra.make_vec(
        "CartPole-v1", 3, vectorization_mode="sync", vector_kwargs={"autoreset_mode": "SameStep"}
    )
    masks = EpisodeMasks.of(envs)
    assert (masks.num_envs, masks.mode) == (3, AutoresetMode.SAME_STEP)
