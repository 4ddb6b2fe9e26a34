"""Each FuncEnv on the numpy backend reproduces its environment's trajectories exactly.

The functional env is driven with a generator seeded as the env's ``reset(seed=...)`` seeds
``np_random``; the same actions must give the same observations, rewards and terminations.
"""

from __future__ import annotations

import numpy as np
import pytest

from tests.functional.conftest import PAIR_IDS, PAIRS, functional_options, random_action


def assert_same_value(ours, theirs, context):
    if isinstance(theirs, np.ndarray):
        assert isinstance(ours, np.ndarray) and ours.dtype == theirs.dtype, context
        np.testing.assert_array_equal(ours, theirs, err_msg=context)
    else:
        assert ours == theirs, f"{context}: {ours!r} != {theirs!r}"


@pytest.mark.parametrize(("func_class", "env_class", "kwargs"), PAIRS, ids=PAIR_IDS)
def test_numpy_functional_env_reproduces_the_env(func_class, env_class, kwargs):
    func = func_class(functional_options(func_class, kwargs))
    for seed in range(6):
        env = env_class(**kwargs)
        observation, _ = env.reset(seed=seed)
        rng = np.random.default_rng(seed)
        state = func.initial(rng)
        assert_same_value(func.observation(state, rng), observation, f"seed {seed} reset")
        actions = np.random.default_rng(100 + seed)
        for step in range(150):
            action = random_action(env.action_space, actions)
            observation, reward, terminated, _, _ = env.step(action)
            following = func.transition(state, action, rng)
            context = f"seed {seed} step {step}"
            assert_same_value(func.observation(following, rng), observation, context)
            assert func.reward(state, action, following, rng) == reward, context
            assert bool(func.terminal(following, rng)) == terminated, context
            state = following
            if terminated:
                break


def test_taxi_functional_refuses_a_fickle_passenger():
    from palaestra.envs.tabular import TaxiFunctional

    with pytest.raises(ValueError, match="fickle_passenger"):
        TaxiFunctional({"env_kwargs": {"fickle_passenger": True}})


def test_unknown_backend_is_rejected_naming_the_choices():
    from palaestra.envs.phys2d import CartPoleFunctional

    with pytest.raises(ValueError, match="'jax' or 'numpy'"):
        CartPoleFunctional({"backend": "torch"}).transition(np.zeros(4), 1, None)
