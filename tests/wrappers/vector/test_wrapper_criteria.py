"""Issue 5 criteria not covered elsewhere: the Vectorize* wrappers used directly, and array
conversion to torch in every autoreset mode, each against Gymnasium 1.4."""

from __future__ import annotations

import numpy as np
import pytest

import palaestra
from tests.wrappers.vector.differential import (
    AUTORESET_MODES,
    assert_same,
    assert_same_error,
    assert_same_space,
    gymnasium_module,
    make_vec_pair,
    sample_actions,
    vector_rollout,
)

NUM_ENVS = 3

VECTORIZED_CASES = [
    (
        "Pendulum-v1",
        "VectorizeTransformObservation",
        "RescaleObservation",
        {"min_obs": -1.0, "max_obs": 1.0},
    ),
    ("CartPole-v1", "VectorizeTransformObservation", "DtypeObservation", {"dtype": np.float64}),
    ("Pendulum-v1", "VectorizeTransformAction", "ClipAction", {}),
    (
        "MountainCarContinuous-v0",
        "VectorizeTransformAction",
        "RescaleAction",
        {"min_action": 0.0, "max_action": 2.0},
    ),
    (
        "CartPole-v1",
        "VectorizeTransformReward",
        "ClipReward",
        {"min_reward": 0.2, "max_reward": 0.8},
    ),
    ("Pendulum-v1", "VectorizeTransformReward", "ClipReward", {"min_reward": -3.0}),
]


@pytest.mark.filterwarnings("ignore::UserWarning")
@pytest.mark.parametrize("mode", AUTORESET_MODES)
@pytest.mark.parametrize(("env_id", "vectorizer", "wrapper", "kwargs"), VECTORIZED_CASES)
def test_vectorized_single_env_wrapper_matches_gymnasium(env_id, vectorizer, wrapper, kwargs, mode):
    gym = gymnasium_module()
    ours_envs, theirs_envs = make_vec_pair(env_id, NUM_ENVS, mode, max_episode_steps=15)

    def build_ours():
        wrapper_class = getattr(palaestra.wrappers, wrapper)
        return getattr(palaestra.wrappers.vector, vectorizer)(ours_envs, wrapper_class, **kwargs)

    def build_theirs():
        wrapper_class = getattr(gym.wrappers, wrapper)
        return getattr(gym.wrappers.vector, vectorizer)(theirs_envs, wrapper_class, **kwargs)

    try:
        theirs = build_theirs()
    except Exception:
        assert_same_error(build_ours, build_theirs)
        return
    ours = build_ours()
    assert_same_space(ours.single_observation_space, theirs.single_observation_space)
    assert_same_space(ours.observation_space, theirs.observation_space)
    assert_same_space(ours.single_action_space, theirs.single_action_space)
    actions = sample_actions(ours.action_space, 40)
    assert_same(vector_rollout(ours, actions, mode), vector_rollout(theirs, actions, mode))


def test_vectorized_observation_wrapper_refuses_same_step_like_gymnasium():
    gym = gymnasium_module()
    ours_envs, theirs_envs = make_vec_pair("Pendulum-v1", NUM_ENVS, "SAME_STEP")
    with pytest.raises(ValueError, match="SAME_STEP"):
        palaestra.wrappers.vector.VectorizeTransformObservation(
            ours_envs, palaestra.wrappers.DtypeObservation, dtype=np.float64
        )
    with pytest.raises(ValueError):
        gym.wrappers.vector.VectorizeTransformObservation(
            theirs_envs, gym.wrappers.DtypeObservation, dtype=np.float64
        )


def torch_rollout(envs, actions, mode, torch):
    """Like ``vector_rollout`` for envs that take and give torch tensors."""
    trace = [envs.reset(seed=5)]
    for action in actions:
        step = envs.step(torch.as_tensor(action))
        trace.append(step)
        dones = torch.logical_or(step[2], step[3])
        if mode == "DISABLED" and bool(dones.any()):
            trace.append(envs.reset(options={"reset_mask": dones}))
    return trace


# Gymnasium 1.4 itself fails in SAME_STEP mode (DLPack cannot take the object array of
# final observations); that mode is checked against our own unconverted env below.
@pytest.mark.parametrize("mode", ["NEXT_STEP", "DISABLED"])
@pytest.mark.parametrize("wrapper", ["NumpyToTorch", "ArrayConversion"])
def test_vector_torch_conversion_matches_gymnasium(wrapper, mode):
    torch = pytest.importorskip("torch", reason="torch conversion needs the torch extra")
    from tests.wrappers.test_numpy_to_torch import assert_same_tensors

    gym = gymnasium_module()
    ours_envs, theirs_envs = make_vec_pair("CartPole-v1", NUM_ENVS, mode, max_episode_steps=6)
    arguments = {"env_xp": np, "target_xp": torch} if wrapper == "ArrayConversion" else {}
    ours = getattr(palaestra.wrappers.vector, wrapper)(ours_envs, **arguments)
    theirs = getattr(gym.wrappers.vector, wrapper)(theirs_envs, **arguments)
    actions = sample_actions(ours_envs.action_space, 20)
    assert_same_tensors(
        torch_rollout(ours, actions, mode, torch), torch_rollout(theirs, actions, mode, torch)
    )


def test_single_env_array_conversion_to_torch_matches_gymnasium():
    torch = pytest.importorskip("torch", reason="torch conversion needs the torch extra")
    from tests.wrappers.test_numpy_to_torch import assert_same_tensors

    gym = gymnasium_module()
    ours = palaestra.wrappers.ArrayConversion(
        palaestra.make("Pendulum-v1"), env_xp=np, target_xp=torch
    )
    theirs = gym.wrappers.ArrayConversion(gym.make("Pendulum-v1"), env_xp=np, target_xp=torch)
    assert_same_tensors(ours.reset(seed=4), theirs.reset(seed=4))
    for action in sample_actions(palaestra.make("Pendulum-v1").action_space, 10):
        tensor = torch.as_tensor(action)
        assert_same_tensors(ours.step(tensor), theirs.step(tensor))


def test_same_step_final_observations_become_tensors_of_the_numpy_ones():
    torch = pytest.importorskip("torch", reason="torch conversion needs the torch extra")
    plain, _ = make_vec_pair("CartPole-v1", NUM_ENVS, "SAME_STEP", max_episode_steps=4)
    converted, _ = make_vec_pair("CartPole-v1", NUM_ENVS, "SAME_STEP", max_episode_steps=4)
    converted = palaestra.wrappers.vector.NumpyToTorch(converted)
    plain.reset(seed=1)
    converted.reset(seed=1)
    for _ in range(4):
        expected = plain.step(np.array([0, 1, 0]))[4]
        info = converted.step(torch.tensor([0, 1, 0]))[4]
    assert info["_final_obs"].tolist() == [True] * NUM_ENVS
    for tensor, array in zip(info["final_obs"], expected["final_obs"]):
        assert isinstance(tensor, torch.Tensor)
        assert np.array_equal(tensor.numpy(), array)
        assert tensor.numpy().dtype == array.dtype
