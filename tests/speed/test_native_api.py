"""The native vector envs' API: errors, spaces, metadata and rendering."""

from __future__ import annotations

import numpy as np
import pytest

import palaestra as gym
from palaestra import error
from palaestra.envs.classic_control.vector import CartPoleVectorEnv, PendulumVectorEnv
from palaestra.vector import AutoresetMode


def test_spaces_are_the_single_env_spaces_batched(env_id):
    native = gym.make_vec(env_id, 3, vectorization_mode="vector_entry_point")
    sync = gym.make_vec(env_id, 3, vectorization_mode="sync")
    assert native.single_observation_space == sync.single_observation_space
    assert native.observation_space == sync.observation_space
    assert native.action_space == sync.action_space


def test_metadata_records_the_autoreset_mode():
    envs = CartPoleVectorEnv(2, autoreset_mode="SameStep")
    assert envs.metadata["autoreset_mode"] is AutoresetMode.SAME_STEP


def test_step_before_reset_raises_reset_needed():
    with pytest.raises(error.ResetNeeded, match="before `reset`"):
        CartPoleVectorEnv(2).step(np.array([0, 1]))


def test_actions_of_the_wrong_shape_are_rejected_with_the_expected_shape():
    envs = CartPoleVectorEnv(2)
    envs.reset(seed=0)
    with pytest.raises(ValueError, match=r"shape \(2,\).*got shape \(3,\)"):
        envs.step(np.array([0, 1, 1]))


BAD_DISCRETE_ACTIONS = {
    "out of range": np.array([0, 2]),
    "negative": np.array([-1, 0]),
    "fractional": np.array([0.0, 1.4]),
    "fraction below one": np.array([0.7, 1.0]),
    "nan": np.array([np.nan, 1.0]),
}


@pytest.mark.parametrize("actions", BAD_DISCRETE_ACTIONS.values(), ids=BAD_DISCRETE_ACTIONS)
def test_discrete_actions_outside_the_space_raise_gymnasiums_assertion(actions, accelerator):
    envs = CartPoleVectorEnv(2, accelerator=accelerator)
    envs.reset(seed=0)
    with pytest.raises(AssertionError, match=r"\(<class 'numpy.ndarray'>\) invalid"):
        envs.step(actions)


@pytest.mark.parametrize("actions", BAD_DISCRETE_ACTIONS.values(), ids=BAD_DISCRETE_ACTIONS)
def test_a_rejected_step_leaves_every_sub_env_as_it_was(actions, accelerator):
    envs, reference = (CartPoleVectorEnv(2, accelerator=accelerator) for _ in range(2))
    for vector_env in (envs, reference):
        vector_env.reset(seed=0)
    with pytest.raises(AssertionError):
        envs.step(actions)
    good = np.array([1, 0])
    for got, want in zip(envs.step(good)[:4], reference.step(good)[:4], strict=True):
        np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("method", ["reset", "step"])
def test_reset_and_step_after_close_raise_closed_environment_error(method):
    envs = CartPoleVectorEnv(2)
    envs.reset(seed=0)
    envs.close()
    envs.close()
    call = envs.reset if method == "reset" else lambda: envs.step(np.array([0, 1]))
    with pytest.raises(error.ClosedEnvironmentError, match="after a call to `close\\(\\)`"):
        call()


def test_get_attr_reads_the_single_envs_attribute_for_every_sub_env():
    envs = CartPoleVectorEnv(3)
    assert envs.get_attr("action_space") == (envs.single_action_space,) * 3
    assert envs.get_attr("render_mode") == (None, None, None)


def test_get_attr_of_np_random_seed_is_per_sub_env():
    envs = CartPoleVectorEnv(3)
    envs.reset(seed=4)
    assert envs.get_attr("np_random_seed") == (4, 5, 6)


def test_set_attr_values_are_returned_per_sub_env_by_get_attr_and_call():
    envs = CartPoleVectorEnv(2)
    envs.set_attr("probe", [1, 2])
    assert envs.get_attr("probe") == (1, 2)
    envs.set_attr("probe", lambda: "called")
    assert envs.call("probe") == ("called", "called")


def test_set_attr_with_the_wrong_number_of_values_raises_value_error():
    with pytest.raises(ValueError, match="Got `3` values for 2 environments"):
        CartPoleVectorEnv(2).set_attr("probe", [1, 2, 3])


def test_set_attr_of_a_shared_attribute_lists_the_parameters_it_can_set():
    with pytest.raises(AttributeError, match=r"'action_space'.*parameters are: force_mag"):
        CartPoleVectorEnv(2).set_attr("action_space", None)


def test_unknown_attribute_names_raise_attribute_error():
    envs = CartPoleVectorEnv(2)
    with pytest.raises(AttributeError, match="no attribute 'no_such_name'"):
        envs.get_attr("no_such_name")
    with pytest.raises(AttributeError, match="no attribute 'no_such_name'"):
        envs.call("no_such_name")


def test_calling_a_method_of_the_single_env_is_refused_with_the_alternative():
    with pytest.raises(AttributeError, match=r"no sub-environment objects.*'sync'"):
        CartPoleVectorEnv(2).call("reset")


def test_disabled_autoreset_refuses_to_step_an_ended_sub_env():
    envs = CartPoleVectorEnv(1, max_episode_steps=2, autoreset_mode="Disabled")
    envs.reset(seed=0)
    envs.step(np.array([0]))
    assert envs.step(np.array([0]))[3].tolist() == [True]
    with pytest.raises(RuntimeError, match=r"Sub-environments \[0\] were stepped"):
        envs.step(np.array([0]))


def test_next_step_autoreset_gives_zero_reward_and_a_first_observation():
    envs = CartPoleVectorEnv(1, max_episode_steps=1)
    first, _ = envs.reset(seed=0)
    envs.step(np.array([1]))
    observation, reward, terminated, truncated, _ = envs.step(np.array([1]))
    assert (reward.tolist(), terminated.tolist(), truncated.tolist()) == ([0.0], [False], [False])
    assert not np.array_equal(observation, first)


def test_unsupported_render_mode_is_rejected_with_the_options():
    with pytest.raises(ValueError, match=r"'rgb_array'.*got 'ansi'"):
        CartPoleVectorEnv(2, render_mode="ansi")


def test_render_draws_each_sub_env_as_the_single_env_does():
    native = gym.make_vec(
        "Pendulum-v1", 2, vectorization_mode="vector_entry_point", render_mode="rgb_array"
    )
    sync = gym.make_vec("Pendulum-v1", 2, vectorization_mode="sync", render_mode="rgb_array")
    for envs in (native, sync):
        envs.reset(seed=1)
        envs.step(np.array([[1.0], [-2.0]], dtype=np.float32))
    frames, expected = native.render(), sync.render()
    assert len(frames) == 2
    for frame, want in zip(frames, expected, strict=True):
        np.testing.assert_array_equal(frame, want)


def test_render_without_a_mode_returns_none():
    envs = PendulumVectorEnv(2)
    envs.reset(seed=0)
    assert envs.render() is None
