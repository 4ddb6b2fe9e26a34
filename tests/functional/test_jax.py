"""The functional envs under jax: jit, vmap, the jax env wrappers and their registered ids."""

from __future__ import annotations

import numpy as np
import pytest

import palaestra
from palaestra.envs.functional_jax_env import FunctionalJaxEnv, FunctionalJaxVectorEnv
from palaestra.envs.phys2d import (
    AcrobotFunctional,
    CartPoleFunctional,
    ContinuousMountainCarFunctional,
    MountainCarFunctional,
    PendulumFunctional,
)
from palaestra.envs.tabular import (
    BlackjackFunctional,
    CliffWalkingFunctional,
    FrozenLakeFunctional,
    TaxiFunctional,
)

JAX_FUNCTIONALS = [
    (CartPoleFunctional, 1),
    (PendulumFunctional, np.array([0.5], dtype=np.float32)),
    (MountainCarFunctional, 2),
    (ContinuousMountainCarFunctional, np.array([0.7], dtype=np.float32)),
    (AcrobotFunctional, 0),
    (CliffWalkingFunctional, 1),
    (FrozenLakeFunctional, 2),
    (TaxiFunctional, 0),
    (BlackjackFunctional, 0),
]
IDS = [func.__name__ for func, _ in JAX_FUNCTIONALS]


@pytest.mark.parametrize(("func_class", "action"), JAX_FUNCTIONALS, ids=IDS)
def test_every_function_jits(jax, func_class, action):
    env = func_class()
    key = jax.random.PRNGKey(0)
    state = jax.jit(env.initial)(key)
    following = jax.jit(env.transition)(state, action, key)
    jax.jit(env.observation)(following, key)
    reward = jax.jit(env.reward)(state, action, following, key)
    terminal = jax.jit(env.terminal)(following, key)
    assert np.shape(reward) == () and np.asarray(terminal).dtype == np.bool_


@pytest.mark.parametrize(("func_class", "action"), JAX_FUNCTIONALS, ids=IDS)
def test_vmapped_steps_equal_one_by_one_steps(jax, func_class, action):
    env = func_class()
    keys = jax.random.split(jax.random.PRNGKey(1), 4)
    states = jax.vmap(env.initial)(keys)
    actions = np.stack([np.asarray(action)] * 4)
    batched = jax.jit(jax.vmap(env.transition))(states, actions, keys)
    transition = jax.jit(env.transition)
    for index in range(4):
        single = transition(states[index], action, keys[index])
        np.testing.assert_allclose(np.asarray(batched[index]), np.asarray(single), rtol=1e-6)


@pytest.mark.parametrize(
    "func_class", [CartPoleFunctional, PendulumFunctional, AcrobotFunctional, MountainCarFunctional]
)
def test_jax_transition_tracks_the_numpy_one_within_float32(jax, func_class):
    numpy_env, jax_env = func_class({"backend": "numpy"}), func_class()
    state = numpy_env.initial(np.random.default_rng(3))
    action = 1 if hasattr(numpy_env.action_space, "n") else np.array([0.3], dtype=np.float32)
    expected = numpy_env.transition(state, action, np.random.default_rng(0))
    got = jax.jit(jax_env.transition)(np.asarray(state, dtype=np.float32), action, None)
    np.testing.assert_allclose(np.asarray(got), expected, rtol=2e-5, atol=1e-6)


@pytest.mark.parametrize(
    "env_id",
    [
        "phys2d/CartPole-v0",
        "phys2d/CartPole-v1",
        "phys2d/Pendulum-v0",
        "tabular/Blackjack-v0",
        "tabular/CliffWalking-v0",
    ],
)
def test_registered_jax_envs_make_reset_and_step_reproducibly(jax, env_id):
    env = palaestra.make(env_id)
    assert isinstance(env.unwrapped, FunctionalJaxEnv)
    assert env.spec.disable_env_checker
    trajectories = []
    for _ in range(2):
        observation, _ = env.reset(seed=5)
        rewards = [np.asarray(observation).tolist()]
        for _ in range(5):
            action = (
                np.zeros(env.action_space.shape, dtype=np.float32)
                if hasattr(env.action_space, "low")
                else 0
            )
            _, reward, terminated, _, _ = env.step(action)
            assert type(reward) is float and type(terminated) is bool
            rewards.append(reward)
            if terminated:
                break
        trajectories.append(rewards)
    assert trajectories[0] == trajectories[1]


@pytest.mark.parametrize(
    ("env_id", "shape"), [("phys2d/CartPole-v1", (6, 4)), ("phys2d/Pendulum-v0", (6, 3))]
)
def test_registered_jax_vector_envs_batch_with_vmap(jax, env_id, shape):
    envs = palaestra.make_vec(env_id, num_envs=6)
    assert isinstance(envs, FunctionalJaxVectorEnv)
    observations, _ = envs.reset(seed=0)
    assert observations.shape == shape
    actions = np.zeros((6, 1), np.float32) if "Pendulum" in env_id else np.ones(6, dtype=np.int64)
    _, rewards, terminations, truncations, _ = envs.step(actions)
    assert rewards.shape == terminations.shape == truncations.shape == (6,)


def test_vector_env_truncates_at_the_time_limit_and_autoresets_next_step(jax):
    from palaestra.envs.phys2d import PendulumJaxVectorEnv

    envs = PendulumJaxVectorEnv(num_envs=2, max_episode_steps=3)
    envs.reset(seed=0)
    actions = np.zeros((2, 1), np.float32)
    flags = [bool(envs.step(actions)[3][0]) for _ in range(5)]
    assert flags == [False, False, True, False, False]


def test_jax_env_rgb_array_render_draws_the_classic_scene(jax):
    env = palaestra.make("phys2d/CartPole-v1", render_mode="rgb_array")
    env.reset(seed=0)
    frame = env.render()
    assert frame.shape == (400, 600, 3) and frame.dtype == np.uint8
    env.close()
