"""``make``: the wrapper stack, kwargs, render modes, errors, and rebuilding from ``env.spec``."""

from __future__ import annotations

import pickle
import re
import warnings

import pytest

import palaestra as gym
from palaestra import error
from palaestra.envs.registration import EnvSpec, WrapperSpec, registry
from tests.envs.test_registration_envs import (
    HERE,
    SCALE_REWARD_ENTRY,
    CounterEnv,
    NoRenderModeArgEnv,
    NoRenderModesEnv,
    NotAnEnv,
    ScaleReward,
    StringMetadataEnv,
    UnrecordedWrapper,
    clean_registry,  # noqa: F401 (autouse fixture)
    make_counter,
    make_prewrapped_counter,
    register_counter,
    write_plugin_module,
)


def wrapper_names(env: gym.Env) -> list[str]:
    names = []
    while isinstance(env, gym.Wrapper):
        names.append(type(env).__name__)
        env = env.env
    return names


def make_quietly(env_id, **kwargs) -> gym.Env:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        return gym.make(env_id, **kwargs)


# --- the wrapper stack ----------------------------------------------------------------------


def test_make_applies_checker_order_enforcing_and_time_limit():
    counter_id = register_counter()
    env = make_quietly(counter_id)
    assert wrapper_names(env) == ["TimeLimit", "OrderEnforcing", "PassiveEnvChecker"]
    assert isinstance(env.unwrapped, CounterEnv)
    assert repr(env) == (
        "<TimeLimit<OrderEnforcing<PassiveEnvChecker<CounterEnv<RegTest/Counter-v0>>>>>"
    )


def test_make_without_step_limit_applies_no_time_limit():
    gym.register("RegTest/Unlimited-v0", entry_point=CounterEnv)
    assert wrapper_names(gym.make("RegTest/Unlimited-v0")) == [
        "OrderEnforcing",
        "PassiveEnvChecker",
    ]


def test_make_max_episode_steps_overrides_the_spec():
    counter_id = register_counter()
    env = gym.make(counter_id, max_episode_steps=2, length=50)
    env.reset(seed=0)
    env.step(0)
    assert env.step(0)[3] is True
    assert env.spec.max_episode_steps == 2


def test_make_max_episode_steps_minus_one_applies_no_time_limit():
    counter_id = register_counter()
    env = gym.make(counter_id, max_episode_steps=-1)
    assert "TimeLimit" not in wrapper_names(env)
    assert env.spec.max_episode_steps is None


def test_make_order_enforce_false_leaves_out_order_enforcing():
    gym.register("RegTest/Free-v0", entry_point=CounterEnv, order_enforce=False)
    assert wrapper_names(gym.make("RegTest/Free-v0")) == ["PassiveEnvChecker"]


@pytest.mark.parametrize(
    ("registered", "argument", "has_checker"),
    [
        (False, None, True),
        (True, None, False),
        (False, True, False),
        (True, False, True),
    ],
)
def test_make_disable_env_checker_argument_overrides_the_spec(registered, argument, has_checker):
    gym.register("RegTest/Checked-v0", entry_point=CounterEnv, disable_env_checker=registered)
    env = gym.make("RegTest/Checked-v0", disable_env_checker=argument)
    assert ("PassiveEnvChecker" in wrapper_names(env)) is has_checker
    assert env.spec.disable_env_checker is not has_checker


def test_make_applies_additional_wrappers_outermost():
    wrapper = WrapperSpec("ScaleReward", SCALE_REWARD_ENTRY, {"scale": 10.0})
    gym.register(
        "RegTest/Scaled-v0",
        entry_point=CounterEnv,
        max_episode_steps=4,
        additional_wrappers=(wrapper,),
    )
    env = gym.make("RegTest/Scaled-v0")
    assert wrapper_names(env) == ["ScaleReward", "TimeLimit", "OrderEnforcing", "PassiveEnvChecker"]
    env.reset(seed=0)
    assert env.step(0)[1] == 10.0


def test_make_rejects_a_wrapper_spec_without_kwargs():
    wrapper = WrapperSpec("UnrecordedWrapper", f"{HERE}:UnrecordedWrapper", None)
    gym.register("RegTest/Unrecorded-v0", entry_point=CounterEnv, additional_wrappers=(wrapper,))
    with pytest.raises(
        ValueError,
        match=re.escape(
            "UnrecordedWrapper wrapper does not inherit from "
            "`palaestra.utils.RecordConstructorArgs`, therefore, the wrapper cannot be recreated."
        ),
    ):
        gym.make("RegTest/Unrecorded-v0")


# --- ids and entry points ----------------------------------------------------------------------


def test_make_accepts_a_function_entry_point():
    gym.register("RegTest/Function-v0", entry_point=make_counter, kwargs={"length": 9})
    assert gym.make("RegTest/Function-v0").unwrapped.length == 9


def test_make_accepts_a_string_entry_point():
    gym.register("RegTest/String-v0", entry_point=f"{HERE}:CounterEnv")
    assert isinstance(gym.make("RegTest/String-v0").unwrapped, CounterEnv)


def test_make_accepts_an_env_spec():
    env = gym.make(EnvSpec("RegTest/Unregistered-v0", entry_point=CounterEnv))
    assert env.spec.id == "RegTest/Unregistered-v0"


def test_make_unversioned_id_uses_the_latest_version_with_a_warning():
    gym.register("RegTest/Ver-v1", entry_point=CounterEnv)
    gym.register("RegTest/Ver-v2", entry_point=CounterEnv)
    with pytest.warns(
        UserWarning,
        match=re.escape(
            "Using the latest versioned environment `RegTest/Ver-v2` instead of the unversioned "
            "environment `RegTest/Ver`."
        ),
    ):
        env = gym.make("RegTest/Ver")
    assert env.spec.id == "RegTest/Ver-v2"


def test_make_outdated_version_warns_but_builds():
    gym.register("RegTest/Ver-v1", entry_point=CounterEnv)
    gym.register("RegTest/Ver-v2", entry_point=CounterEnv)
    with pytest.warns(
        DeprecationWarning,
        match=re.escape(
            "The environment RegTest/Ver-v1 is out of date. You should consider upgrading to "
            "version `v2`."
        ),
    ):
        env = gym.make("RegTest/Ver-v1")
    assert env.spec.id == "RegTest/Ver-v1"


def test_make_unknown_id_raises_with_suggestion():
    with pytest.raises(error.NameNotFound, match="Did you mean: `CartPole`"):
        gym.make("CartPol-v1")


def test_make_unregistered_version_raises_version_not_found():
    with pytest.raises(error.VersionNotFound, match=re.escape("[ `v0`, `v1` ]")):
        gym.make("CartPole-v3")


def test_make_module_prefix_imports_the_module_first(tmp_path, monkeypatch):
    plugin_module = write_plugin_module(tmp_path, monkeypatch)
    assert "Plugin/Imported-v0" not in registry
    env = gym.make(f"{plugin_module}:Plugin/Imported-v0")
    assert env.spec.id == "Plugin/Imported-v0"


def test_make_module_prefix_with_missing_module_explains():
    with pytest.raises(
        ModuleNotFoundError,
        match=re.escape(
            "No module named 'no_such_plugin_xyz'. Environment registration via importing a "
            "module failed. Check whether 'no_such_plugin_xyz' contains env registration and "
            "can be imported."
        ),
    ):
        gym.make("no_such_plugin_xyz:Env-v0")


@pytest.mark.parametrize("bad_id", [3, None, ["CartPole-v1"]])
def test_make_rejects_ids_that_are_neither_strings_nor_specs(bad_id):
    with pytest.raises(
        TypeError, match=re.escape(f"Expected id to be a string or EnvSpec, got {type(bad_id)}")
    ):
        gym.make(bad_id)


def test_make_spec_without_entry_point_raises():
    gym.register("RegTest/VectorOnly-v0", vector_entry_point="some.module:VectorEnv")
    with pytest.raises(
        error.Error, match="RegTest/VectorOnly-v0 registered but entry_point is not specified"
    ):
        gym.make("RegTest/VectorOnly-v0")


def test_make_reports_bad_constructor_kwargs_with_the_id():
    counter_id = register_counter()
    with pytest.raises(TypeError) as raised:
        gym.make(counter_id, colour="red")
    message = str(raised.value)
    assert "unexpected keyword argument 'colour'" in message
    assert message.endswith(
        "was raised from the environment creator for RegTest/Counter-v0 with kwargs "
        "({'length': 5, 'colour': 'red'})"
    )


def test_make_rejects_a_creator_that_returns_no_env():
    gym.register("RegTest/NotAnEnv-v0", entry_point=NotAnEnv)
    with pytest.raises(
        TypeError,
        match=re.escape("The environment must inherit from the palaestra.Env class, actual class"),
    ):
        gym.make("RegTest/NotAnEnv-v0")


def test_make_points_gymnasium_envs_to_porting():
    gymnasium = pytest.importorskip("gymnasium")
    gym.register("RegTest/GymnasiumEnv-v0", entry_point=lambda: gymnasium.make("CartPole-v1"))
    with pytest.raises(TypeError, match=re.escape("port the class to `palaestra.Env`")):
        gym.make("RegTest/GymnasiumEnv-v0", disable_env_checker=True)


# --- kwargs ---------------------------------------------------------------------------------


def test_make_kwargs_update_the_spec_kwargs():
    counter_id = register_counter()
    env = gym.make(counter_id, start=2)
    assert (env.unwrapped.length, env.unwrapped.start) == (5, 2)
    assert env.spec.kwargs == {"length": 5, "start": 2}


def test_make_kwargs_override_the_spec_kwargs():
    counter_id = register_counter()
    env = gym.make(counter_id, length=8)
    assert env.unwrapped.length == 8
    assert env.spec.kwargs == {"length": 8}


def test_make_leaves_the_registered_kwargs_untouched():
    counter_id = register_counter()
    env = gym.make(counter_id, length=8)
    env.spec.kwargs["length"] = 99
    assert registry[counter_id].kwargs == {"length": 5}


# --- render modes ---------------------------------------------------------------------------


@pytest.mark.parametrize("render_mode", [None, "rgb_array", "ansi"])
def test_make_accepts_declared_render_modes_silently(render_mode):
    counter_id = register_counter()
    env = make_quietly(counter_id, render_mode=render_mode)
    assert env.render_mode == render_mode
    assert env.spec.kwargs == {"length": 5, "render_mode": render_mode}


def test_make_warns_on_an_undeclared_render_mode():
    counter_id = register_counter()
    with pytest.warns(
        UserWarning,
        match=re.escape(
            "The environment is being initialised with render_mode='depth_array' that is not in "
            "the possible render_modes (['rgb_array', 'ansi'])."
        ),
    ):
        env = gym.make(counter_id, render_mode="depth_array")
    assert env.render_mode == "depth_array"


def test_make_warns_when_metadata_lacks_render_modes():
    gym.register("RegTest/NoModes-v0", entry_point=NoRenderModesEnv)
    with pytest.warns(
        UserWarning,
        match=re.escape(
            "The environment creator metadata doesn't include `render_modes`, "
            "contains: ['render_fps']"
        ),
    ):
        env = gym.make("RegTest/NoModes-v0", render_mode="anything")
    assert env.render_mode == "anything"


def test_make_rejects_metadata_that_is_not_a_dict():
    gym.register("RegTest/StringMetadata-v0", entry_point=StringMetadataEnv)
    with pytest.raises(
        error.InvalidMetadata,
        match=re.escape("Expect the environment metadata to be dict, actual type: <class 'str'>"),
    ):
        gym.make("RegTest/StringMetadata-v0")


def test_make_does_not_validate_render_modes_of_function_entry_points():
    gym.register("RegTest/Function-v0", entry_point=make_counter)
    env = make_quietly("RegTest/Function-v0", render_mode="depth_array")
    assert env.render_mode == "depth_array"


def test_make_list_render_mode_applies_render_collection():
    counter_id = register_counter()
    env = gym.make(counter_id, render_mode="rgb_array_list")
    assert type(env).__name__ == "RenderCollection"
    assert env.unwrapped.render_mode == "rgb_array"
    assert env.render_mode == "rgb_array_list"


def test_make_human_mode_on_rgb_array_env_applies_human_rendering():
    counter_id = register_counter()
    pytest.importorskip("pygame")
    with pytest.warns(UserWarning, match="The HumanRendering wrapper is being applied"):
        env = gym.make(counter_id, render_mode="human")
    assert type(env).__name__ == "HumanRendering"
    assert env.unwrapped.render_mode == "rgb_array"
    env.close()


def test_make_human_mode_on_env_without_render_mode_argument_explains():
    gym.register("RegTest/OldRender-v0", entry_point=NoRenderModeArgEnv)
    with (
        pytest.warns(UserWarning, match="HumanRendering"),
        pytest.raises(error.Error, match="doesn't implement human-rendering natively"),
    ):
        gym.make("RegTest/OldRender-v0", render_mode="human")


# --- env.spec and rebuilding ---------------------------------------------------------------------


def test_env_spec_records_the_full_configuration():
    counter_id = register_counter()
    env = gym.make(counter_id, max_episode_steps=7, render_mode="ansi", start=1)
    assert env.spec == EnvSpec(
        id=counter_id,
        entry_point=CounterEnv,
        max_episode_steps=7,
        order_enforce=True,
        disable_env_checker=False,
        kwargs={"length": 5, "render_mode": "ansi", "start": 1},
    )


def test_unwrapped_spec_is_the_bare_env():
    counter_id = register_counter()
    env = gym.make(counter_id)
    bare = env.unwrapped.spec
    assert (bare.max_episode_steps, bare.order_enforce, bare.disable_env_checker) == (
        None,
        False,
        True,
    )


def test_make_from_env_spec_rebuilds_the_same_stack():
    counter_id = register_counter()
    env = gym.make(counter_id, max_episode_steps=3, length=2, render_mode="ansi")
    rebuilt = gym.make(env.spec)
    assert rebuilt.spec == env.spec
    assert repr(rebuilt) == repr(env)
    assert rebuilt.unwrapped.length == 2


def test_make_from_env_spec_rebuilds_user_applied_wrappers():
    counter_id = register_counter()
    env = ScaleReward(gym.make(counter_id), scale=4.0)
    assert env.spec.additional_wrappers == (
        WrapperSpec("ScaleReward", SCALE_REWARD_ENTRY, {"scale": 4.0}),
    )
    rebuilt = gym.make(env.spec)
    assert wrapper_names(rebuilt) == wrapper_names(env)
    assert rebuilt.spec == env.spec
    rebuilt.reset(seed=0)
    assert rebuilt.step(0)[1] == 4.0


def test_make_from_env_spec_rebuilds_registered_additional_wrappers():
    wrapper = WrapperSpec("ScaleReward", SCALE_REWARD_ENTRY, {"scale": 0.5})
    gym.register("RegTest/Scaled-v0", entry_point=CounterEnv, additional_wrappers=(wrapper,))
    env = ScaleReward(gym.make("RegTest/Scaled-v0", length=1), scale=3.0)
    rebuilt = gym.make(env.spec)
    assert wrapper_names(rebuilt) == [
        "ScaleReward",
        "ScaleReward",
        "OrderEnforcing",
        "PassiveEnvChecker",
    ]
    assert rebuilt.spec == env.spec


def test_make_from_env_spec_with_unrecorded_wrapper_raises():
    counter_id = register_counter()
    env = UnrecordedWrapper(gym.make(counter_id))
    with pytest.raises(ValueError, match="UnrecordedWrapper wrapper does not inherit"):
        gym.make(env.spec)


def test_json_round_trip_of_a_made_spec_rebuilds_the_env():
    gym.register("RegTest/Json-v0", entry_point=f"{HERE}:CounterEnv", max_episode_steps=6)
    env = ScaleReward(gym.make("RegTest/Json-v0", length=2), scale=2.0)
    rebuilt = gym.make(EnvSpec.from_json(env.spec.to_json()))
    assert rebuilt.spec == env.spec
    assert repr(rebuilt) == repr(env)


def test_entry_point_that_wraps_itself_is_not_wrapped_twice():
    wrapper = WrapperSpec("ScaleReward", SCALE_REWARD_ENTRY, {"scale": 3.0})
    gym.register(
        "RegTest/Prewrapped-v0", entry_point=make_prewrapped_counter, additional_wrappers=(wrapper,)
    )
    env = gym.make("RegTest/Prewrapped-v0")
    assert wrapper_names(env).count("ScaleReward") == 1


def test_entry_point_wrapping_differently_from_the_spec_raises():
    wrapper = WrapperSpec("ScaleReward", SCALE_REWARD_ENTRY, {"scale": 5.0})
    gym.register(
        "RegTest/Prewrapped-v0", entry_point=make_prewrapped_counter, additional_wrappers=(wrapper,)
    )
    with pytest.raises(
        ValueError, match="is different from the saved `EnvSpec` additional wrapper"
    ):
        gym.make("RegTest/Prewrapped-v0")


# --- against Gymnasium --------------------------------------------------------------------------


@pytest.mark.parametrize(
    "make_kwargs",
    [
        {},
        {"max_episode_steps": 20},
        {"max_episode_steps": -1},
        {"disable_env_checker": True},
        {"render_mode": "rgb_array", "sutton_barto_reward": True},
    ],
)
def test_cartpole_spec_and_stack_match_gymnasium(make_kwargs):
    gymnasium = pytest.importorskip("gymnasium")
    ours = gym.make("CartPole-v1", **make_kwargs)
    theirs = gymnasium.make("CartPole-v1", **make_kwargs)
    assert repr(ours) == repr(theirs)
    for name in (
        "id",
        "reward_threshold",
        "max_episode_steps",
        "order_enforce",
        "disable_env_checker",
        "kwargs",
        "additional_wrappers",
    ):
        assert getattr(ours.spec, name) == getattr(theirs.spec, name), name


def test_make_from_env_spec_rebuilds_render_collection():
    counter_id = register_counter()
    env = gym.make(counter_id, render_mode="rgb_array_list")
    rebuilt = gym.make(env.spec)
    assert repr(rebuilt) == repr(env)
    assert rebuilt.spec == env.spec
    assert rebuilt.render_mode == "rgb_array_list"


def warning_texts(record) -> list[str]:
    return [re.sub(r"\x1b\[\d+m", "", str(w.message)) for w in record]


@pytest.mark.parametrize(
    ("env_id", "render_mode"),
    [("CartPole-v1", "bogus"), ("CartPole-v1", "rgb_array_list"), ("CartPole", None)],
)
def test_make_warnings_match_gymnasium(env_id, render_mode):
    gymnasium = pytest.importorskip("gymnasium")
    with warnings.catch_warnings(record=True) as ours:
        warnings.simplefilter("always")
        gym.make(env_id, render_mode=render_mode).close()
    with warnings.catch_warnings(record=True) as theirs:
        warnings.simplefilter("always")
        gymnasium.make(env_id, render_mode=render_mode).close()
    assert warning_texts(ours) == warning_texts(theirs)


def test_env_spec_survives_pickling():
    env = ScaleReward(gym.make(register_counter(), render_mode="ansi"), scale=2.0)
    assert pickle.loads(pickle.dumps(env.spec)) == env.spec


def test_make_fills_in_missing_additional_wrappers_with_a_warning():
    spec = EnvSpec("RegTest/Old-v0", entry_point=CounterEnv)
    del spec.additional_wrappers
    with pytest.warns(UserWarning, match="does not have a `additional_wrappers`, set it to an"):
        env = gym.make(spec)
    assert env.spec.additional_wrappers == ()
