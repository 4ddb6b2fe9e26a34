"""The Box2D environments' registrations, spaces, checks and errors, beside Gymnasium's."""

from __future__ import annotations

import importlib
import pickle
import sys
import warnings

import numpy as np
import pytest

import palaestra
from palaestra import error
from palaestra.envs.box2d import (
    BipedalWalker,
    BipedalWalkerHardcore,
    CarRacing,
    LunarLander,
    LunarLanderContinuous,
)
from palaestra.envs.box2d._common import import_box2d
from palaestra.utils.env_checker import check_env
from tests.envs.box2d.conftest import BOX2D_IDS


@pytest.mark.parametrize("env_id", BOX2D_IDS)
def test_registration_matches_gymnasium(gymnasium, env_id):
    ours, theirs = palaestra.spec(env_id), gymnasium.spec(env_id)
    assert ours.max_episode_steps == theirs.max_episode_steps
    assert ours.reward_threshold == theirs.reward_threshold
    assert ours.kwargs == theirs.kwargs
    assert ours.entry_point.split(":")[1] == theirs.entry_point.split(":")[1]
    assert (
        ours.entry_point.split(":")[0].replace("palaestra", "gymnasium")
        == (theirs.entry_point.split(":")[0])
    )


SPACE_CASES = [(env_id, {}) for env_id in BOX2D_IDS] + [
    (env_id, {"continuous": continuous})
    for env_id in ("LunarLander-v3", "CarRacing-v3")
    for continuous in (False, True)
]


@pytest.mark.parametrize(("env_id", "kwargs"), SPACE_CASES, ids=str)
def test_spaces_and_metadata_match_gymnasium(gymnasium, env_id, kwargs):
    ours, theirs = palaestra.make(env_id, **kwargs), gymnasium.make(env_id, **kwargs)
    for name in ("observation_space", "action_space"):
        mine, reference = getattr(ours, name), getattr(theirs, name)
        assert type(mine).__name__ == type(reference).__name__
        assert repr(mine) == repr(reference)
        if hasattr(reference, "low"):
            np.testing.assert_array_equal(mine.low, reference.low)
            np.testing.assert_array_equal(mine.high, reference.high)
    assert ours.metadata == theirs.metadata


@pytest.mark.parametrize("env_id", BOX2D_IDS)
def test_check_env_passes(env_id):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        check_env(palaestra.make(env_id).unwrapped)


@pytest.mark.parametrize("env_id", BOX2D_IDS)
def test_the_same_seed_gives_the_same_first_observation_and_another_seed_another(env_id):
    env = palaestra.make(env_id)
    first = env.reset(seed=3)[0]
    np.testing.assert_array_equal(env.reset(seed=3)[0], first)
    assert not np.array_equal(env.reset(seed=4)[0], first)


@pytest.mark.parametrize("env_id", BOX2D_IDS)
def test_registered_time_limit_truncates_episodes(env_id):
    env = palaestra.make(env_id, max_episode_steps=3)
    env.reset(seed=0)
    zero = np.zeros(env.action_space.shape, env.action_space.dtype) if env.action_space.shape else 0
    flags = [env.step(zero)[2:4] for _ in range(3)]
    assert flags == [(False, False), (False, False), (False, True)]


@pytest.mark.parametrize("env_class", [LunarLander, BipedalWalker, CarRacing])
def test_step_before_reset_fails_clearly(env_class):
    env = env_class()
    with pytest.raises(AssertionError, match="reset"):
        env.step(env.action_space.sample())


@pytest.mark.parametrize("env_id", BOX2D_IDS)
def test_a_pickled_env_rebuilds_from_its_constructor_arguments(env_id):
    env = palaestra.make(env_id).unwrapped
    copy = pickle.loads(pickle.dumps(env))
    assert type(copy) is type(env)
    np.testing.assert_array_equal(copy.reset(seed=1)[0], env.reset(seed=1)[0])


@pytest.mark.parametrize("gravity", [-12.0, 0.0, 1.0])
def test_lander_rejects_gravity_outside_the_open_interval(gymnasium, gravity):
    with pytest.raises(AssertionError) as expected:
        gymnasium.make("LunarLander-v3", gravity=gravity)
    with pytest.raises(
        AssertionError, match=str(expected.value).replace("(", r"\(").replace(")", r"\)")
    ):
        LunarLander(gravity=gravity)


@pytest.mark.parametrize(
    ("kwargs", "name"),
    [({"wind_power": 25.0}, "wind_power"), ({"turbulence_power": -1.0}, "turbulence_power")],
)
def test_lander_warns_about_wind_outside_the_recommended_range(kwargs, name):
    with pytest.warns(UserWarning, match=f"{name} value is recommended"):
        LunarLander(enable_wind=True, **kwargs)


@pytest.mark.parametrize("action", [4, -1, 1.5, "2"])
def test_lander_rejects_discrete_actions_outside_its_space(action):
    env = LunarLander()
    env.reset(seed=0)
    with pytest.raises(AssertionError, match="invalid"):
        env.step(action)


def test_lander_accepts_numpy_integer_actions_as_gymnasium_does():
    env = LunarLander()
    env.reset(seed=0)
    expected = LunarLander()
    expected.reset(seed=0)
    np.testing.assert_array_equal(env.step(np.int64(2))[0], expected.step(2)[0])


def test_car_racing_rejects_discrete_actions_outside_its_space_with_gymnasiums_message():
    env = CarRacing(continuous=False)
    env.reset(seed=0)
    with pytest.raises(error.InvalidAction, match=r"you passed the invalid action `7`"):
        env.step(7)


@pytest.mark.parametrize(
    ("cls", "keyword"), [(LunarLanderContinuous, "continuous"), (BipedalWalkerHardcore, "hardcore")]
)
def test_variant_classes_explain_how_to_make_the_variant(gymnasium, cls, keyword):
    reference = importlib.import_module(f"gymnasium.envs.box2d.{cls.__module__.rsplit('.', 1)[1]}")
    with pytest.raises(gymnasium.error.Error) as expected:
        getattr(reference, cls.__name__)()
    with pytest.raises(error.Error) as raised:
        cls()
    assert str(raised.value) == str(expected.value)
    assert f"{keyword}=True" in str(raised.value)


def test_missing_box2d_raises_dependency_not_installed_naming_the_extra(monkeypatch):
    monkeypatch.setitem(sys.modules, "Box2D", None)
    with pytest.raises(error.DependencyNotInstalled, match=r'pip install "palaestra\[box2d\]"'):
        import_box2d()
    for module in ("lunar_lander", "bipedal_walker", "car_racing", "car_dynamics"):
        monkeypatch.delitem(sys.modules, f"palaestra.envs.box2d.{module}")
    monkeypatch.delitem(sys.modules, "palaestra.envs.box2d")
    with pytest.raises(error.DependencyNotInstalled, match=r"palaestra\[box2d\]"):
        palaestra.make("LunarLander-v3")


def test_lander_reports_leg_contact_and_comes_to_rest_with_a_bonus():
    env = palaestra.make("LunarLander-v3")
    observation, _ = env.reset(seed=0)
    from palaestra.envs.box2d.lunar_lander import heuristic

    rewards, contacts = [], set()
    done = False
    while not done:
        observation, reward, terminated, truncated, _ = env.step(heuristic(env, observation))
        rewards.append(reward)
        contacts.add((observation[6], observation[7]))
        done = terminated or truncated
    assert terminated and rewards[-1] == 100
    assert (1.0, 1.0) in contacts


def test_walker_falling_on_its_hull_ends_the_episode_with_minus_100():
    env = palaestra.make("BipedalWalker-v3")
    env.reset(seed=0)
    done = False
    while not done:  # both legs fold: the hull drops to the ground
        _, reward, terminated, truncated, _ = env.step(np.array([1, -1, 1, -1], np.float32))
        done = terminated or truncated
    assert terminated and reward == -100
    assert env.unwrapped.game_over


@pytest.mark.parametrize(
    ("env_id", "action"), [("LunarLanderContinuous-v3", 0.5), ("BipedalWalker-v3", np.zeros(3))]
)
def test_continuous_actions_of_the_wrong_shape_raise_gymnasiums_error_type(
    gymnasium, env_id, action
):
    theirs = gymnasium.make(env_id).unwrapped
    theirs.reset(seed=0)
    with pytest.raises(IndexError):
        theirs.step(action)
    ours = palaestra.make(env_id).unwrapped
    ours.reset(seed=0)
    with pytest.raises(IndexError, match=r"got "):
        ours.step(action)


BOX2D_MODULES = ["", ".lunar_lander", ".bipedal_walker", ".car_racing", ".car_dynamics"]


@pytest.mark.parametrize("suffix", BOX2D_MODULES)
def test_modules_have_gymnasiums_public_names_parameters_and_bases(gymnasium, suffix):
    import inspect

    from tests.test_gymnasium_surface import _parameters, _public_names

    reference = importlib.import_module(f"gymnasium.envs.box2d{suffix}")
    ours = importlib.import_module(f"palaestra.envs.box2d{suffix}")
    assert [name for name in _public_names(reference) if not hasattr(ours, name)] == []
    for name in _public_names(reference):
        theirs, mine = getattr(reference, name), getattr(ours, name)
        pairs = [(theirs, mine)]
        if inspect.isclass(theirs):
            pairs = [
                (value, getattr(mine, attr))
                for attr, value in vars(theirs).items()
                if callable(value) and (not attr.startswith("_") or attr == "__init__")
            ]
            bases = {base.__name__ for base in mine.__mro__}
            assert [b.__name__ for b in theirs.__mro__[1:] if b.__name__ not in bases] == []
        for their_function, my_function in pairs:
            expected = _parameters(their_function)
            assert _parameters(my_function)[: len(expected)] == expected, name
