"""Registering environments and looking them up: ids, versions, namespaces and their errors."""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import palaestra as gym
from palaestra import error
from palaestra.envs.registration import (
    EnvSpec,
    WrapperSpec,
    find_highest_version,
    get_env_id,
    load_env_creator,
    namespace,
    parse_env_id,
    registry,
)
from tests.envs.test_registration_envs import (
    HERE,
    CounterEnv,
    clean_registry,  # noqa: F401 (autouse fixture)
)


def register_ids(*env_ids: str) -> None:
    for env_id in env_ids:
        gym.register(env_id, entry_point=CounterEnv)


# --- ids ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("env_id", "parts"),
    [
        ("CartPole-v1", (None, "CartPole", 1)),
        ("CartPole", (None, "CartPole", None)),
        ("ALE/Pong-v5", ("ALE", "Pong", 5)),
        ("my-ns/Some.Env-v10", ("my-ns", "Some.Env", 10)),
        ("Env-Name-v0", (None, "Env-Name", 0)),
        ("Env-v0-v1", (None, "Env-v0", 1)),
    ],
)
def test_parse_env_id_splits_namespace_name_and_version(env_id, parts):
    assert parse_env_id(env_id) == parts


@pytest.mark.parametrize("env_id", ["", "a/b/c-v0", "Env-v1 ", "Bad Name-v0", "Env-vx/"])
def test_parse_env_id_rejects_malformed_ids(env_id):
    with pytest.raises(error.Error, match=re.escape(f"Malformed environment ID: {env_id}.")):
        parse_env_id(env_id)


@pytest.mark.parametrize(
    "env_id", ["CartPole-v1", "CartPole", "ALE/Pong-v5", "ns/Name", "Some.Env-v10"]
)
def test_get_env_id_inverts_parse_env_id(env_id):
    assert get_env_id(*parse_env_id(env_id)) == env_id


@pytest.mark.parametrize(
    "env_id", ["CartPole-v1", "Env", "ALE/Pong-v5", "my-ns/Some.Env-v10", "a/b/c-v0", "x-v"]
)
def test_parse_env_id_agrees_with_gymnasium(env_id):
    gymnasium_registration = pytest.importorskip("gymnasium.envs.registration")
    try:
        expected = gymnasium_registration.parse_env_id(env_id)
    except Exception as e:
        with pytest.raises(error.Error) as raised:
            parse_env_id(env_id)
        assert str(raised.value) == str(e)
    else:
        assert parse_env_id(env_id) == expected


@settings(max_examples=100, deadline=None)
@given(st.text(alphabet="aZ09_-./:v ", max_size=14))
def test_parse_env_id_agrees_with_gymnasium_on_any_text(env_id):
    gymnasium_registration = pytest.importorskip("gymnasium.envs.registration")
    try:
        expected = gymnasium_registration.parse_env_id(env_id)
    except Exception:
        with pytest.raises(error.Error):
            parse_env_id(env_id)
    else:
        assert parse_env_id(env_id) == expected


@settings(max_examples=100, deadline=None)
@given(
    ns=st.none() | st.from_regex(r"[A-Za-z][\w-]{0,5}", fullmatch=True),
    name=st.from_regex(r"[A-Za-z][\w.]{0,6}", fullmatch=True),
    version=st.none() | st.integers(min_value=0, max_value=10**6),
)
def test_parse_env_id_inverts_get_env_id(ns, name, version):
    assert parse_env_id(get_env_id(ns, name, version)) == (ns, name, version)


# --- register ------------------------------------------------------------------------------


def test_register_stores_every_field():
    wrapper = WrapperSpec("ScaleReward", f"{HERE}:ScaleReward", {"scale": 2.0})
    gym.register(
        "RegTest/Full-v3",
        entry_point=CounterEnv,
        reward_threshold=5.0,
        nondeterministic=True,
        max_episode_steps=7,
        order_enforce=False,
        disable_env_checker=True,
        additional_wrappers=(wrapper,),
        vector_entry_point="some.module:VectorEnv",
        kwargs={"length": 2},
    )
    assert registry["RegTest/Full-v3"] == EnvSpec(
        id="RegTest/Full-v3",
        entry_point=CounterEnv,
        reward_threshold=5.0,
        nondeterministic=True,
        max_episode_steps=7,
        order_enforce=False,
        disable_env_checker=True,
        kwargs={"length": 2},
        additional_wrappers=(wrapper,),
        vector_entry_point="some.module:VectorEnv",
    )


def test_register_defaults_kwargs_to_an_empty_dict():
    gym.register("RegTest/Plain-v0", entry_point=CounterEnv)
    assert registry["RegTest/Plain-v0"].kwargs == {}


def test_register_without_any_entry_point_raises():
    with pytest.raises(ValueError, match="Either `entry_point` or `vector_entry_point`"):
        gym.register("RegTest/Nothing-v0")


def test_register_accepts_only_a_vector_entry_point():
    gym.register("RegTest/VectorOnly-v0", vector_entry_point="some.module:VectorEnv")
    assert registry["RegTest/VectorOnly-v0"].entry_point is None


def test_register_malformed_id_raises():
    with pytest.raises(error.Error, match="Malformed environment ID: bad id"):
        gym.register("bad id", entry_point=CounterEnv)


def test_register_again_overrides_with_a_warning():
    gym.register("RegTest/Twice-v0", entry_point=CounterEnv)
    with pytest.warns(UserWarning, match="Overriding environment RegTest/Twice-v0 already in"):
        gym.register("RegTest/Twice-v0", entry_point=CounterEnv, max_episode_steps=3)
    assert registry["RegTest/Twice-v0"].max_episode_steps == 3


def test_register_versioned_after_unversioned_raises():
    gym.register("RegTest/Mixed", entry_point=CounterEnv)
    with pytest.raises(
        error.RegistrationError,
        match=re.escape(
            "Can't register the versioned environment `RegTest/Mixed-v1` when the unversioned "
            "environment `RegTest/Mixed` of the same name already exists."
        ),
    ):
        gym.register("RegTest/Mixed-v1", entry_point=CounterEnv)


def test_register_unversioned_after_versioned_names_the_latest_version():
    register_ids("RegTest/Mixed-v1", "RegTest/Mixed-v4", "RegTest/Mixed-v2")
    with pytest.raises(
        error.RegistrationError,
        match=re.escape(
            "Can't register the unversioned environment `RegTest/Mixed` when the versioned "
            "environment `RegTest/Mixed-v4` of the same name already exists."
        ),
    ):
        gym.register("RegTest/Mixed", entry_point=CounterEnv)


def test_same_name_in_other_namespace_does_not_conflict():
    register_ids("RegTest/Shared", "OtherRegTest/Shared-v0")
    assert {"RegTest/Shared", "OtherRegTest/Shared-v0"} <= set(registry)


def test_namespace_context_manager_prefixes_ids():
    with namespace("RegTestNs"):
        gym.register("Inner-v0", entry_point=CounterEnv)
    gym.register("Outer-v0", entry_point=CounterEnv)
    assert "RegTestNs/Inner-v0" in registry
    assert "Outer-v0" in registry
    del registry["Outer-v0"]


def test_namespace_context_manager_replaces_an_explicit_namespace():
    with namespace("RegTestNs"):
        gym.register("RegTest/Inner-v0", entry_point=CounterEnv)
    assert "RegTestNs/Inner-v0" in registry
    assert "RegTest/Inner-v0" not in registry


def test_namespace_context_manager_restores_the_outer_namespace_on_error():
    with pytest.raises(RuntimeError), namespace("RegTestNs"):
        raise RuntimeError
    assert gym.envs.registration.current_namespace is None


def test_namespace_warns_about_an_overridden_namespace_kwarg():
    with (
        pytest.warns(UserWarning, match="Custom namespace `Mine` is being overridden"),
        namespace("RegTestNs"),
    ):
        gym.register("Inner-v0", entry_point=CounterEnv, kwargs={"namespace": "Mine"})


def test_register_envs_is_a_no_op():
    before = dict(registry)
    assert gym.register_envs(gym.envs) is None
    assert registry == before


# --- spec and version logic -----------------------------------------------------------------


def test_spec_returns_the_registered_spec():
    register_ids("RegTest/Found-v0")
    assert gym.spec("RegTest/Found-v0") is registry["RegTest/Found-v0"]


def test_find_highest_version_ignores_other_names_and_namespaces():
    register_ids("RegTest/V-v1", "RegTest/V-v7", "RegTest/W-v9", "OtherRegTest/V-v8")
    assert find_highest_version("RegTest", "V") == 7


def test_find_highest_version_of_unversioned_or_missing_name_is_none():
    register_ids("RegTest/Unversioned")
    assert find_highest_version("RegTest", "Unversioned") is None
    assert find_highest_version("RegTest", "Missing") is None


def test_unknown_namespace_suggests_a_close_one():
    register_ids("RegTest/A-v0")
    with pytest.raises(
        error.NamespaceNotFound,
        match=re.escape("Namespace RegTets not found. Did you mean: `RegTest`?"),
    ):
        gym.spec("RegTets/A-v0")


def test_unknown_namespace_without_close_match_suggests_installing():
    with pytest.raises(
        error.NamespaceNotFound,
        match=re.escape(
            "Namespace Zzzqx not found. Have you installed the proper package for Zzzqx?"
        ),
    ):
        gym.spec("Zzzqx/A-v0")


def test_unknown_name_suggests_a_close_one():
    with pytest.raises(
        error.NameNotFound,
        match=re.escape("Environment `CartPol` doesn't exist. Did you mean: `CartPole`?"),
    ):
        gym.spec("CartPol-v1")


def test_unknown_name_in_namespace_names_the_namespace():
    register_ids("RegTest/Alpha-v0")
    with pytest.raises(
        error.NameNotFound,
        match=re.escape("Environment `Zzzqx` doesn't exist in namespace RegTest."),
    ) as raised:
        gym.spec("RegTest/Zzzqx-v0")
    assert "Did you mean" not in str(raised.value)


def test_version_above_the_latest_lists_the_versions():
    register_ids("RegTest/Ver-v1", "RegTest/Ver-v3")
    with pytest.raises(
        error.VersionNotFound,
        match=re.escape(
            "Environment version `v5` for environment `RegTest/Ver` doesn't exist. "
            "It provides versioned environments: [ `v1`, `v3` ]."
        ),
    ):
        gym.spec("RegTest/Ver-v5")


@pytest.mark.parametrize("old_version", [0, 2])
def test_version_below_the_latest_is_deprecated(old_version):
    register_ids("RegTest/Ver-v1", "RegTest/Ver-v3")
    with pytest.raises(
        error.DeprecatedEnv,
        match=re.escape(
            f"Environment version v{old_version} for `RegTest/Ver` is deprecated. "
            "Please use `RegTest/Ver-v3` instead."
        ),
    ):
        gym.spec(f"RegTest/Ver-v{old_version}")


def test_version_of_an_unversioned_env_points_to_the_default():
    register_ids("RegTest/Plain")
    with pytest.raises(
        error.DeprecatedEnv,
        match=re.escape(
            "Environment version `v1` for environment `RegTest/Plain` doesn't exist. "
            "It provides the default version `RegTest/Plain`."
        ),
    ):
        gym.spec("RegTest/Plain-v1")


def test_spec_of_an_unversioned_id_is_literal():
    register_ids("RegTest/Ver-v1")
    with pytest.raises(error.Error, match=r"^No registered env with id: RegTest/Ver$"):
        gym.spec("RegTest/Ver")


LOOKUP_IDS = [
    "RegTets/A-v0",
    "Zzzqx/A-v0",
    "RegTest/Aa-v0",
    "RegTest/Zzzqx-v0",
    "RegTest/Ver-v5",
    "RegTest/Ver-v0",
    "RegTest/Ver-v2",
    "RegTest/Ver",
    "RegTest/Plain-v1",
    "CartPol-v1",
    "CartPole-v9",
    "bad id",
]


@pytest.mark.parametrize("env_id", LOOKUP_IDS)
def test_spec_errors_match_gymnasium(env_id):
    gymnasium = pytest.importorskip("gymnasium")
    ids = ["RegTest/A-v0", "RegTest/Ver-v1", "RegTest/Ver-v3", "RegTest/Plain"]
    register_ids(*ids)
    saved = dict(gymnasium.registry)
    try:
        for registered in ids:
            gymnasium.register(registered, entry_point=f"{HERE}:CounterEnv")
        with pytest.raises(gymnasium.error.Error) as expected:
            gymnasium.spec(env_id)
    finally:
        gymnasium.registry.clear()
        gymnasium.registry.update(saved)
    with pytest.raises(error.Error) as raised:
        gym.spec(env_id)
    assert type(raised.value).__name__ == type(expected.value).__name__
    assert str(raised.value) == str(expected.value)


# --- load_env_creator ------------------------------------------------------------------------


def test_load_env_creator_imports_the_attribute():
    assert load_env_creator(f"{HERE}:CounterEnv") is CounterEnv


@pytest.mark.parametrize("entry_point", ["no_colon", ":Attr", "module:", "a:b:c"])
def test_load_env_creator_rejects_malformed_entry_points(entry_point):
    with pytest.raises(ValueError, match=re.escape(f"entry point {entry_point!r} is malformed")):
        load_env_creator(entry_point)


def test_load_env_creator_names_a_missing_attribute():
    with pytest.raises(
        AttributeError, match=re.escape(f"module {HERE!r} has no attribute 'Missing'")
    ):
        load_env_creator(f"{HERE}:Missing")


def test_load_env_creator_missing_module_raises():
    with pytest.raises(ModuleNotFoundError, match="no_such_module_xyz"):
        load_env_creator("no_such_module_xyz:Env")
