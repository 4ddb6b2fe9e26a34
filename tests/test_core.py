"""Specification of the core Env / Wrapper API, checked against Gymnasium where both exist."""

from __future__ import annotations

import numpy as np
import pytest

from palaestra import ActionWrapper, Env, ObservationWrapper, RewardWrapper, Wrapper, spaces
from palaestra.error import Error
from palaestra.utils import RecordConstructorArgs
from palaestra.utils.seeding import np_random


class CountingEnv(Env):
    """Observation is a step counter; reward is the action; ends after three steps."""

    metadata = {"render_modes": ["rgb_array"], "render_fps": 4}
    observation_space = spaces.Discrete(10)
    action_space = spaces.Discrete(3)

    def __init__(self, render_mode=None):
        self.render_mode = render_mode
        self.count = 0
        self.closed = False

    def reset(self, *, seed=None, options=None):
        super().reset(seed=seed)
        self.count = int(self.np_random.integers(3))
        return self.count, {"start": self.count}

    def step(self, action):
        self.count += 1
        return self.count, float(action), self.count >= 3, False, {}

    def render(self):
        return np.zeros((2, 2, 3), dtype=np.uint8)

    def close(self):
        self.closed = True


class Doubled(ObservationWrapper):
    def observation(self, observation):
        return 2 * observation


class Negated(RewardWrapper):
    def reward(self, reward):
        return -reward


class Shifted(ActionWrapper):
    def action(self, action):
        return action + 1


class Scaled(Wrapper, RecordConstructorArgs):
    def __init__(self, env, scale=2):
        RecordConstructorArgs.__init__(self, scale=scale)
        Wrapper.__init__(self, env)
        self.scale = scale


@pytest.fixture
def env():
    return CountingEnv()


def test_np_random_draws_the_same_stream_as_gymnasium():
    gym_seeding = pytest.importorskip("gymnasium.utils.seeding")
    ours, our_seed = np_random(123)
    theirs, their_seed = gym_seeding.np_random(123)
    assert our_seed == their_seed == 123
    np.testing.assert_array_equal(ours.random(50), theirs.random(50))


@pytest.mark.parametrize("seed", [-1, 1.5, "3"])
def test_np_random_rejects_seeds_that_are_not_non_negative_ints(seed):
    with pytest.raises(Error, match="Seed must be"):
        np_random(seed)


def test_reset_with_seed_makes_reset_deterministic(env):
    first = [env.reset(seed=7)[0] for _ in range(3)]
    assert first == [env.reset(seed=7)[0]] * 3


def test_np_random_seed_reports_the_reset_seed(env):
    env.reset(seed=11)
    assert env.np_random_seed == 11


def test_np_random_seed_is_minus_one_after_assigning_a_generator(env):
    env.np_random = np.random.default_rng(0)
    assert env.np_random_seed == -1


def test_np_random_is_created_lazily_with_a_random_seed(env):
    assert isinstance(env.np_random, np.random.Generator)
    assert isinstance(env.np_random_seed, int)


def test_str_without_spec_names_the_class(env):
    assert str(env) == "<CountingEnv instance>"


def test_wrapper_str_nests_inner_env(env):
    assert str(Doubled(Negated(env))) == "<Doubled<Negated<CountingEnv instance>>>"
    assert repr(Doubled(env)) == "<Doubled<CountingEnv instance>>"


def test_context_manager_closes_env(env):
    with env as entered:
        assert entered is env
    assert env.closed


def test_wrapper_close_closes_inner_env(env):
    Doubled(env).close()
    assert env.closed


def test_observation_wrapper_transforms_reset_and_step(env):
    wrapped = Doubled(env)
    obs, _ = wrapped.reset(seed=7)
    assert obs == 2 * env.count
    assert wrapped.step(0)[0] == 2 * env.count


def test_reward_wrapper_transforms_reward(env):
    wrapped = Negated(env)
    wrapped.reset(seed=0)
    assert wrapped.step(2)[1] == -2.0


def test_action_wrapper_transforms_action(env):
    wrapped = Shifted(env)
    wrapped.reset(seed=0)
    assert wrapped.step(1)[1] == 2.0


def test_unwrapped_reaches_the_base_env(env):
    assert Doubled(Negated(env)).unwrapped is env


def test_wrapper_forwards_spaces_metadata_and_render_mode():
    inner = CountingEnv(render_mode="rgb_array")
    wrapped = Doubled(inner)
    assert wrapped.observation_space == inner.observation_space
    assert wrapped.action_space == inner.action_space
    assert wrapped.metadata is inner.metadata
    assert wrapped.render_mode == "rgb_array"
    assert wrapped.render().shape == (2, 2, 3)


def test_wrapper_space_override_leaves_inner_env_untouched(env):
    wrapped = Doubled(env)
    wrapped.observation_space = spaces.Discrete(20)
    assert wrapped.observation_space == spaces.Discrete(20)
    assert env.observation_space == spaces.Discrete(10)


def test_wrapper_np_random_is_the_inner_generator(env):
    wrapped = Doubled(env)
    wrapped.reset(seed=3)
    assert wrapped.np_random is env.np_random
    assert wrapped.np_random_seed == 3


def test_wrapper_refuses_private_np_random(env):
    with pytest.raises(AttributeError, match="Can't access `_np_random` of a wrapper"):
        _ = Doubled(env)._np_random


def test_wrapper_does_not_forward_inner_attributes(env):
    with pytest.raises(AttributeError, match=r"^'Doubled' object has no attribute 'count'$"):
        _ = Doubled(env).count


def test_get_wrapper_attr_finds_inner_attribute(env):
    assert Doubled(Negated(env)).get_wrapper_attr("count") == 0


def test_get_wrapper_attr_names_missing_attribute(env):
    with pytest.raises(AttributeError, match="'missing'"):
        Doubled(env).get_wrapper_attr("missing")


def test_has_wrapper_attr(env):
    wrapped = Doubled(env)
    assert wrapped.has_wrapper_attr("count")
    assert not wrapped.has_wrapper_attr("missing")


def test_set_wrapper_attr_sets_existing_inner_attribute(env):
    wrapped = Doubled(Negated(env))
    assert wrapped.set_wrapper_attr("count", 5)
    assert env.count == 5
    assert "count" not in vars(wrapped)


def test_set_wrapper_attr_creates_new_attribute_on_outer_wrapper(env):
    wrapped = Doubled(env)
    assert wrapped.set_wrapper_attr("fresh", 1)
    assert vars(wrapped)["fresh"] == 1
    assert not hasattr(env, "fresh")


def test_set_wrapper_attr_without_force_does_not_create(env):
    assert not Doubled(env).set_wrapper_attr("fresh", 1, force=False)


def test_wrapper_rejects_non_env():
    with pytest.raises(TypeError, match=r"Expected env to be a `palaestra\.Env`"):
        Wrapper(object())


def test_base_methods_raise_not_implemented():
    bare = Env()
    with pytest.raises(NotImplementedError):
        bare.step(0)
    with pytest.raises(NotImplementedError):
        bare.render()


def test_wrapper_spec_records_constructor_args():
    import palaestra as gym

    env = Scaled(gym.make("CartPole-v1"), scale=3)
    recorded = env.spec.additional_wrappers[-1]
    assert recorded.name == "Scaled"
    assert recorded.entry_point == "tests.test_core:Scaled"
    assert recorded.kwargs == {"scale": 3}


def test_wrapper_spec_is_none_without_inner_spec(env):
    assert Scaled(env).spec is None
