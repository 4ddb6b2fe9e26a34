"""The FuncEnv template and the array-namespace rebinding behind the functional envs."""

from __future__ import annotations

import numpy as np
import pytest

from palaestra.envs.classic_control.dynamics import cartpole
from palaestra.experimental import functional
from palaestra.experimental._array_namespace import jax_namespace, rebind
from palaestra.experimental.functional import FuncEnv


def test_experimental_functional_exports_gymnasiums_names():
    for name in [
        "FuncEnv",
        "StateType",
        "ActType",
        "ObsType",
        "RewardType",
        "TerminalType",
        "RenderStateType",
        "Params",
    ]:
        assert hasattr(functional, name)


def test_options_become_attributes_and_default_params_are_read_once():
    class WithParams(FuncEnv):
        def get_default_params(self, **kwargs):
            return {"gravity": self.gravity}

    env = WithParams({"gravity": 3.0})
    assert env.gravity == 3.0 and env.default_params == {"gravity": 3.0}


@pytest.mark.parametrize(
    "name", ["initial", "transition", "observation", "reward", "terminal", "render_init"]
)
def test_unimplemented_functions_raise_not_implemented(name):
    env = FuncEnv()
    arguments = {
        "initial": (None,),
        "transition": (None, None, None),
        "observation": (None, None),
        "reward": (None, None, None, None),
        "terminal": (None, None),
        "render_init": (),
    }[name]
    with pytest.raises(NotImplementedError):
        getattr(env, name)(*arguments)


def test_state_and_transition_info_default_to_empty_dicts():
    assert FuncEnv().state_info(None) == {} and FuncEnv().transition_info(None, None, None) == {}


def test_transform_wraps_every_function_and_stores_step_info():
    env = FuncEnv()
    wrapped = []

    def mark(function):
        wrapped.append(function.__name__)
        return function

    env.transform(mark)
    assert wrapped == [
        "initial",
        "transition",
        "observation",
        "reward",
        "terminal",
        "state_info",
        "transition_info",
    ]
    assert env.step_info(None, None, None) == {}


def test_rebind_to_numpy_returns_the_function_itself():
    assert rebind(cartpole.cartpole_next_components, np) is cartpole.cartpole_next_components


def test_rebind_to_jax_shares_the_code_object_no_second_copy_of_the_equations(jax):
    rebound = rebind(cartpole.cartpole_next_components, jax_namespace())
    assert rebound is not cartpole.cartpole_next_components
    assert rebound.__code__ is cartpole.cartpole_next_components.__code__
    assert rebound.__globals__["np"] is jax_namespace()


def test_rebound_dynamics_agree_with_numpy_within_float32(jax):
    state = np.array([0.01, -0.2, 0.05, 0.3])
    expected = cartpole.cartpole_step(state, 1, cartpole.CartPoleParams())
    got = rebind(cartpole.cartpole_step, jax_namespace())(
        state.astype(np.float32), 1, cartpole.CartPoleParams()
    )
    np.testing.assert_allclose(np.asarray(got), expected, rtol=1e-6, atol=1e-7)
