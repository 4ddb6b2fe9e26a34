"""VectorEnv base class, the vector wrapper classes and info batching."""

from __future__ import annotations

import numpy as np
import pytest

import palaestra
from palaestra.vector import (
    AutoresetMode,
    SyncVectorEnv,
    VectorActionWrapper,
    VectorEnv,
    VectorObservationWrapper,
    VectorRewardWrapper,
    VectorWrapper,
)
from palaestra.vector.vector_env import add_info
from tests.vector.helpers import Odd


class Bare(VectorEnv):
    num_envs = 2


@pytest.fixture
def cartpoles():
    envs = palaestra.make_vec("CartPole-v1", num_envs=3, vectorization_mode="sync")
    yield envs
    envs.close()


class Doubled(VectorObservationWrapper):
    def observations(self, observations):
        return observations * 2


class Flipped(VectorActionWrapper):
    def actions(self, actions):
        return 1 - actions


class Halved(VectorRewardWrapper):
    def rewards(self, rewards):
        return rewards / 2


def test_repr_names_the_spec_id_when_there_is_one(cartpoles):
    assert repr(cartpoles) == "SyncVectorEnv(CartPole-v1, num_envs=3)"


def test_repr_without_spec_shows_only_num_envs():
    assert repr(Bare()) == "Bare(num_envs=2)"


def test_wrapper_repr_shows_the_wrapped_env(cartpoles):
    assert repr(Halved(cartpoles)) == "<Halved, SyncVectorEnv(CartPole-v1, num_envs=3)>"


def test_base_step_and_render_are_not_implemented():
    with pytest.raises(NotImplementedError, match=r"Bare\(num_envs=2\) step function"):
        Bare().step(None)
    with pytest.raises(NotImplementedError, match="render function is not implemented"):
        Bare().render()


def test_base_reset_seeds_np_random():
    env = Bare()
    env.reset(seed=5)
    assert env.np_random_seed == 5
    assert env.np_random.integers(100) == np.random.default_rng(5).integers(100)


def test_np_random_seed_is_minus_one_when_np_random_is_assigned():
    env = Bare()
    env.np_random = np.random.default_rng(3)
    assert env.np_random_seed == -1


def test_close_calls_close_extras_once():
    calls = []

    class Counting(Bare):
        def close_extras(self, **kwargs):
            calls.append(kwargs)

    env = Counting()
    env.close(flag=1)
    env.close(flag=2)
    assert calls == [{"flag": 1}] and env.closed


def test_vector_wrapper_refuses_a_single_env():
    with pytest.raises(TypeError, match=r"Expected env to be a `palaestra\.vector\.VectorEnv`"):
        VectorWrapper(palaestra.make("CartPole-v1"))


def test_wrapper_forwards_attributes(cartpoles):
    wrapped = VectorWrapper(cartpoles)
    assert wrapped.num_envs == 3
    assert wrapped.unwrapped is cartpoles
    assert wrapped.spec is cartpoles.spec
    assert wrapped.metadata is cartpoles.metadata
    assert wrapped.render_mode is None
    assert wrapped.action_space is cartpoles.action_space
    assert wrapped.single_observation_space is cartpoles.single_observation_space
    wrapped.close()
    assert wrapped.closed and cartpoles.closed


def test_wrapper_may_replace_spaces_and_metadata_without_touching_the_env(cartpoles):
    wrapped = VectorWrapper(cartpoles)
    wrapped.single_action_space = palaestra.spaces.Discrete(5)
    wrapped.metadata = {"autoreset_mode": AutoresetMode.DISABLED}
    assert wrapped.single_action_space == palaestra.spaces.Discrete(5)
    assert cartpoles.single_action_space == palaestra.spaces.Discrete(2)
    assert cartpoles.metadata["autoreset_mode"] is AutoresetMode.NEXT_STEP


def test_wrapper_attribute_lookup_goes_down_the_stack(cartpoles):
    wrapped = Halved(VectorWrapper(cartpoles))
    assert wrapped.get_wrapper_attr("copy") is True
    assert wrapped.has_wrapper_attr("envs")
    assert wrapped.set_wrapper_attr("copy", False)
    assert cartpoles.copy is False
    with pytest.raises(AttributeError, match="no attribute 'nothing_here'"):
        wrapped.get_wrapper_attr("nothing_here")


def test_observation_action_and_reward_wrappers_transform_their_part(cartpoles):
    observations, _ = Doubled(cartpoles).reset(seed=1)
    plain, _ = cartpoles.reset(seed=1)
    np.testing.assert_array_equal(observations, plain * 2)
    _, rewards, *_ = Halved(Flipped(cartpoles)).step(np.array([0, 1, 0]))
    assert rewards.tolist() == [0.5, 0.5, 0.5]


def test_observation_wrapper_refuses_same_step_autoreset():
    envs = SyncVectorEnv([lambda: palaestra.make("CartPole-v1")], autoreset_mode="SameStep")
    with pytest.raises(ValueError) as caught:
        Doubled(envs)
    assert str(caught.value).startswith(
        "Expected autoreset_mode to be NEXT_STEP or DISABLED, got AutoresetMode.SAME_STEP"
    )


def test_observation_wrapper_warns_when_autoreset_mode_is_missing():
    with pytest.warns(UserWarning, match=r"Vector environment \(Bare\(num_envs=2\)\) is missing"):
        Doubled(Bare())


def test_add_info_batches_python_scalars_in_their_own_type():
    infos = add_info({}, {"i": 3, "f": 0.5, "b": True}, env_num=1, num_envs=2)
    assert infos["i"].dtype == np.int64 and infos["i"].tolist() == [0, 3]
    assert infos["f"].dtype == np.float64 and infos["b"].dtype == np.bool_
    assert infos["_i"].tolist() == [False, True]


def test_add_info_batches_numpy_scalars_and_arrays():
    infos = add_info({}, {"s": np.float32(2), "a": np.ones((2, 2), np.uint8)}, 0, 3)
    assert infos["s"].dtype == np.float32
    assert infos["a"].shape == (3, 2, 2) and infos["a"].dtype == np.uint8


def test_add_info_puts_other_values_in_object_arrays():
    infos = add_info({}, {"text": "hi", "odd": Odd(1), "flag": np.bool_(True)}, 1, 2)
    assert infos["text"].dtype == object and infos["text"].tolist() == [None, "hi"]
    assert infos["odd"][1] == Odd(1)
    assert infos["flag"].dtype == object


def test_add_info_recurses_into_dicts_with_their_own_masks():
    infos = add_info({}, {"outer": {"inner": 1}}, 0, 2)
    infos = add_info(infos, {"outer": {"other": 2.0}}, 1, 2)
    assert infos["_outer"].tolist() == [True, True]
    assert infos["outer"]["_inner"].tolist() == [True, False]
    assert infos["outer"]["other"].tolist() == [0.0, 2.0]


def test_add_info_keeps_final_obs_dicts_whole():
    infos = add_info({}, {"final_obs": {"x": 1}}, 1, 2)
    assert infos["final_obs"].dtype == object
    assert infos["final_obs"][1] == {"x": 1} and infos["final_obs"][0] is None


def test_add_info_matches_gymnasium():
    gymnasium = pytest.importorskip("gymnasium")
    from tests.vector.helpers import assert_same, info_for

    class Theirs(gymnasium.vector.VectorEnv):
        num_envs = 3

    rng = np.random.default_rng(0)
    ours, theirs = {}, {}
    for step in range(12):
        env_info = info_for(step, rng)
        ours = add_info(ours, env_info, step % 3, 3)
        theirs = Theirs()._add_info(theirs, env_info, step % 3)
    assert_same(ours, theirs)
