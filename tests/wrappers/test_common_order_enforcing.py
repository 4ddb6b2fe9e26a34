"""OrderEnforcing forbids step and render before the first reset."""

import importlib

import pytest

import palaestra
from palaestra.envs.registration import EnvSpec
from palaestra.error import ResetNeeded
from palaestra.wrappers import OrderEnforcing
from tests.fixtures.counting_env import counting_env_class, make_counting_env

RENDER_MESSAGE = (
    "Cannot call `env.render()` before calling `env.reset()`, if this is an intended action, "
    "set `disable_render_order_enforcing=True` on the OrderEnforcer wrapper."
)


@pytest.fixture
def env():
    return OrderEnforcing(make_counting_env(palaestra, render_mode="ansi"))


def test_step_before_reset_raises_reset_needed(env):
    with pytest.raises(ResetNeeded) as caught:
        env.step(0)
    assert str(caught.value) == "Cannot call env.step() before calling env.reset()"


def test_render_before_reset_raises_reset_needed(env):
    with pytest.raises(ResetNeeded) as caught:
        env.render()
    assert str(caught.value) == RENDER_MESSAGE


def test_render_before_reset_is_allowed_when_disabled():
    env = OrderEnforcing(
        make_counting_env(palaestra, render_mode="ansi"), disable_render_order_enforcing=True
    )
    assert env.render() == "count=0"


def test_step_and_render_work_after_reset(env):
    env.reset()
    assert env.step(2)[1] == 2.5
    assert env.render() == "count=1"


def test_has_reset_turns_true_on_reset(env):
    assert env.has_reset is False
    env.reset()
    assert env.has_reset is True


def test_records_its_constructor_arguments():
    env = OrderEnforcing(make_counting_env(palaestra), disable_render_order_enforcing=True)
    assert env._saved_kwargs == {"disable_render_order_enforcing": True}


def test_spec_says_order_is_enforced():
    inner = make_counting_env(palaestra)
    inner.spec = EnvSpec(
        id="Counting-v0", entry_point=counting_env_class(palaestra), order_enforce=False
    )
    assert OrderEnforcing(inner).spec.order_enforce is True


def test_error_type_matches_gymnasium_by_name():
    gymnasium = pytest.importorskip("gymnasium")
    theirs = gymnasium.wrappers.OrderEnforcing(make_counting_env(gymnasium))
    with pytest.raises(gymnasium.error.ResetNeeded) as their_error:
        theirs.step(0)
    ours = OrderEnforcing(make_counting_env(palaestra))
    with pytest.raises(ResetNeeded) as our_error:
        ours.step(0)
    assert str(our_error.value) == str(their_error.value)


@pytest.mark.parametrize("library", ["gymnasium", "palaestra"])
def test_order_enforcing_of_a_cartpole_built_in_rgb_array_list_mode(library):
    # Gymnasium's own check of the wrapper, run on both libraries: the env is built without
    # make (so without the frame collector) in a mode its canvas must still draw.
    gym = pytest.importorskip(library)
    cartpole = importlib.import_module(f"{library}.envs.classic_control").CartPoleEnv
    env = gym.wrappers.OrderEnforcing(cartpole(render_mode="rgb_array_list"))
    for call in (lambda: env.step(0), env.render):
        with pytest.raises(gym.error.ResetNeeded):
            call()
    assert env.has_reset is False
    env.reset(seed=0)
    env.step(0)
    env.render()
    assert env.has_reset is True
    unordered = cartpole(render_mode="rgb_array_list")
    gym.wrappers.OrderEnforcing(unordered, disable_render_order_enforcing=True).render()
