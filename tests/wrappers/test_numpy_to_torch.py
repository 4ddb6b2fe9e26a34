"""NumpyToTorch (single and vector) with the installed PyTorch, side by side with Gymnasium."""

from __future__ import annotations

import pickle

import numpy as np
import pytest

import palaestra
from tests.wrappers.test_transform_observation import dict_env, tuple_env
from tests.wrappers.vector.differential import gymnasium_module

torch = pytest.importorskip("torch", reason="NumpyToTorch needs the torch extra")

from palaestra.wrappers import NumpyToTorch  # noqa: E402
from palaestra.wrappers.numpy_to_torch import numpy_to_torch, torch_to_numpy  # noqa: E402


def assert_same_tensors(ours, theirs):
    if isinstance(theirs, dict):
        assert list(ours) == list(theirs)
        for key in theirs:
            assert_same_tensors(ours[key], theirs[key])
    elif isinstance(theirs, (tuple, list)):
        assert type(ours) is type(theirs)
        for mine, reference in zip(ours, theirs):
            assert_same_tensors(mine, reference)
    elif isinstance(theirs, torch.Tensor):
        assert isinstance(ours, torch.Tensor)
        assert ours.dtype == theirs.dtype
        assert ours.device == theirs.device
        assert torch.equal(ours, theirs)
    else:
        assert type(ours) is type(theirs)
        assert ours == theirs


def test_observations_are_tensors_with_the_numpy_dtype():
    env = NumpyToTorch(
        palaestra.wrappers.DtypeObservation(palaestra.make("CartPole-v1"), np.float64)
    )
    obs, _ = env.reset(seed=0)
    assert isinstance(obs, torch.Tensor)
    assert obs.dtype == torch.float64


def test_torch_actions_reach_the_env_as_numpy():
    env = NumpyToTorch(palaestra.make("Pendulum-v1"))
    env.reset(seed=0)
    obs, reward, terminated, truncated, info = env.step(torch.tensor([0.5]))
    assert obs.shape == (3,)
    assert (type(reward), type(terminated), type(truncated), info) == (float, bool, bool, {})


@pytest.mark.parametrize("factory", [dict_env, tuple_env], ids=["dict", "tuple"])
def test_nested_observations_are_converted_leaf_by_leaf(factory):
    env = NumpyToTorch(factory(palaestra)())
    obs, _ = env.reset(seed=0)
    leaves = obs.values() if isinstance(obs, dict) else obs
    assert all(isinstance(leaf, torch.Tensor) for leaf in leaves)


def test_device_argument_places_the_tensors():
    env = NumpyToTorch(palaestra.make("CartPole-v1"), device="cpu")
    assert env.reset(seed=0)[0].device == torch.device("cpu")
    assert env.device == "cpu"


@pytest.mark.skipif(not torch.cuda.is_available(), reason="no CUDA device")
def test_cuda_device_places_the_tensors_on_the_gpu():
    env = NumpyToTorch(palaestra.make("CartPole-v1"), device="cuda")
    assert env.reset(seed=0)[0].device.type == "cuda"
    assert env.step(torch.tensor(1, device="cuda"))[0].device.type == "cuda"


def test_single_env_matches_gymnasium_step_for_step():
    gym = gymnasium_module()
    ours = NumpyToTorch(palaestra.make("CartPole-v1"))
    theirs = gym.wrappers.NumpyToTorch(gym.make("CartPole-v1"))
    assert_same_tensors(ours.reset(seed=3), theirs.reset(seed=3))
    for action in [0, 1, 1, 0, 1]:
        assert_same_tensors(ours.step(torch.tensor(action)), theirs.step(torch.tensor(action)))


def test_round_trip_through_torch_keeps_values_and_dtypes():
    value = {
        "a": np.arange(3, dtype=np.int32),
        "b": (np.float64(1.5), np.zeros((2, 2), np.float32)),
    }
    back = torch_to_numpy(numpy_to_torch(value))
    assert back["a"].dtype == np.int32
    assert back["b"][1].dtype == np.float32
    assert np.array_equal(back["a"], value["a"])


def test_wrapper_survives_pickling():
    env = NumpyToTorch(palaestra.make("CartPole-v1"))
    restored = pickle.loads(pickle.dumps(env))
    assert_same_tensors(restored.reset(seed=2), env.reset(seed=2))


@pytest.mark.parametrize("mode", ["NEXT_STEP", "DISABLED"])
def test_vector_env_matches_gymnasium_step_for_step(mode):
    gym = gymnasium_module()
    from tests.wrappers.vector.differential import make_vec_pair

    ours_envs, theirs_envs = make_vec_pair("CartPole-v1", 2, mode, max_episode_steps=5)
    ours = palaestra.wrappers.vector.NumpyToTorch(ours_envs)
    theirs = gym.wrappers.vector.NumpyToTorch(theirs_envs)
    assert_same_tensors(ours.reset(seed=0), theirs.reset(seed=0))
    for _ in range(7):
        actions = torch.tensor([1, 0])
        ours_step, theirs_step = ours.step(actions), theirs.step(actions)
        assert_same_tensors(ours_step, theirs_step)
        dones = torch.logical_or(ours_step[2], ours_step[3])
        if mode == "DISABLED" and bool(dones.any()):
            mask = {"reset_mask": dones}
            assert_same_tensors(ours.reset(options=dict(mask)), theirs.reset(options=dict(mask)))


def test_vector_rewards_and_flags_are_tensors():
    envs = palaestra.wrappers.vector.NumpyToTorch(
        palaestra.make_vec("CartPole-v1", 2, vectorization_mode="sync")
    )
    envs.reset(seed=0)
    _, rewards, terminations, _, _ = envs.step(torch.tensor([0, 1]))
    assert rewards.dtype == torch.float64
    assert terminations.dtype == torch.bool


def test_same_step_final_observations_become_tensors():
    # Gymnasium 1.4 raises a BufferError here: its object array cannot cross DLPack.
    envs = palaestra.make_vec(
        "CartPole-v1",
        2,
        vectorization_mode="sync",
        max_episode_steps=2,
        vector_kwargs={"autoreset_mode": palaestra.vector.AutoresetMode.SAME_STEP},
    )
    envs = palaestra.wrappers.vector.NumpyToTorch(envs)
    envs.reset(seed=0)
    envs.step(torch.tensor([0, 0]))
    *_, info = envs.step(torch.tensor([0, 0]))
    assert info["_final_obs"].tolist() == [True, True]
    assert all(isinstance(obs, torch.Tensor) for obs in info["final_obs"])


def test_arrays_with_negative_strides_are_converted():
    # Handed straight to DLPack, a flipped array aborts the whole process in PyTorch.
    flipped = np.arange(6).reshape(2, 3)[::-1, ::-1]
    assert numpy_to_torch(flipped).tolist() == flipped.tolist()


def test_read_only_arrays_are_converted():
    frozen = np.arange(4.0)
    frozen.flags.writeable = False
    assert numpy_to_torch(frozen).tolist() == [0.0, 1.0, 2.0, 3.0]


def test_actions_that_require_gradients_are_accepted():
    env = NumpyToTorch(palaestra.make("Pendulum-v1"))
    env.reset(seed=0)
    action = torch.tensor([0.5], requires_grad=True) * 2
    obs, *_ = env.step(action)
    assert obs.shape == (3,)
