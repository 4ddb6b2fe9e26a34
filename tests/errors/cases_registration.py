"""Misuses of registration, ``make``, ``make_vec`` and ``spec`` (``envs/registration.py``)."""

from __future__ import annotations

import contextlib
import functools
import json
from collections.abc import Iterator
from types import ModuleType
from typing import Any

import numpy as np

from tests.errors.harness import CaseTable

TABLE = CaseTable("registration")
case = TABLE.add

PREFIX = "ErrCase"


@functools.cache
def env_class(gym: ModuleType, metadata: Any = None) -> type:
    """A minimal valid env class of ``gym`` with the given class metadata."""

    class Point(gym.Env):
        def __init__(self, render_mode=None, **kwargs):
            self.observation_space = gym.spaces.Box(-1.0, 1.0, (2,), np.float32)
            self.action_space = gym.spaces.Discrete(2)
            self.render_mode = render_mode

        def reset(self, *, seed=None, options=None):
            super().reset(seed=seed)
            return np.zeros(2, np.float32), {}

        def step(self, action):
            return np.zeros(2, np.float32), 0.0, False, False, {}

    if metadata is not None:
        Point.metadata = metadata
    return Point


@contextlib.contextmanager
def registered(gym: ModuleType, *ids: str, **kwargs: Any) -> Iterator[None]:
    """Register each id (an ``env_class`` entry point unless given), removing them afterwards."""
    kwargs.setdefault("entry_point", env_class(gym))
    try:
        for env_id in ids:
            gym.register(env_id, **kwargs)
        yield
    finally:
        for env_id in [key for key in gym.registry if PREFIX in key]:
            del gym.registry[env_id]


def spec(gym: ModuleType, **kwargs: Any):
    return gym.envs.registration.EnvSpec(f"{PREFIX}Spec-v0", **kwargs)


def wrapper_spec(gym: ModuleType, kwargs: Any = None):
    return gym.envs.registration.WrapperSpec(
        "ClipReward", f"{gym.__name__}.wrappers:ClipReward", kwargs
    )


# ---- EnvSpec JSON ----------------------------------------------------------------------------
@case
def spec_to_json_with_a_callable_entry_point(gym):
    spec(gym, entry_point=env_class(gym)).to_json()


@case
def spec_from_json_with_a_malformed_wrapper(gym):
    text = json.dumps({"id": "A-v0", "additional_wrappers": [{"bogus": 1}]})
    gym.envs.registration.EnvSpec.from_json(text)


@case
def spec_from_json_with_an_unknown_field(gym):
    text = json.dumps({"id": "A-v0", "bogus": 1, "additional_wrappers": []})
    gym.envs.registration.EnvSpec.from_json(text)


# ---- ids and lookup --------------------------------------------------------------------------
@case
def make_a_malformed_id(gym):
    gym.make("Not an id!")


@case
def make_a_namespace_close_to_another(gym):
    with registered(gym, f"{PREFIX}Space/Thing-v0"):
        gym.make(f"{PREFIX}Spade/Thing-v0")


@case
def make_an_unknown_namespace(gym):
    gym.make("zzqqxxyy/Thing-v0")


@case
def make_a_misspelt_name(gym):
    gym.make("CartPol-v1")


@case
def make_an_unknown_name(gym):
    gym.make("Zzqqxxyy-v0")


@case
def make_an_unknown_name_in_a_namespace(gym):
    with registered(gym, f"{PREFIX}Space/Thing-v0"):
        gym.make(f"{PREFIX}Space/Zzqqxxyy-v0")


@case
def make_a_version_of_an_unversioned_env(gym):
    with registered(gym, f"{PREFIX}Only"):
        gym.make(f"{PREFIX}Only-v3")


@case
def make_a_version_above_the_latest(gym):
    gym.make("CartPole-v9")


@case
def make_a_missing_version_below_the_latest(gym):
    with registered(gym, f"{PREFIX}Old-v1", f"{PREFIX}Old-v3"):
        gym.make(f"{PREFIX}Old-v2")


@case
def make_an_outdated_version(gym):
    gym.make("CartPole-v0").close()


@case
def make_an_unversioned_id_of_versioned_envs(gym):
    gym.make("CartPole").close()


@case
def make_a_version_with_a_leading_zero(gym):
    gym.make("CartPole-v01")


@case
def make_from_a_module_that_does_not_exist(gym):
    gym.make("no_such_module_zzqq:CartPole-v1")


@case
def spec_of_a_version_with_a_leading_zero(gym):
    gym.spec("CartPole-v01")


@case
def spec_of_a_registry_entry_that_is_not_a_spec(gym):
    with registered(gym):
        gym.registry[f"{PREFIX}Bad-v0"] = "not a spec"
        gym.spec(f"{PREFIX}Bad-v0")


# ---- register --------------------------------------------------------------------------------
@case
def register_versioned_beside_unversioned(gym):
    with registered(gym, f"{PREFIX}U", f"{PREFIX}U-v0"):
        pass


@case
def register_unversioned_beside_versioned(gym):
    with registered(gym, f"{PREFIX}V-v0", f"{PREFIX}V"):
        pass


@case
def register_without_any_entry_point(gym):
    with registered(gym, f"{PREFIX}None-v0", entry_point=None):
        pass


@case
def register_a_namespace_kwarg_inside_a_namespace(gym):
    with registered(gym), gym.envs.registration.namespace(f"{PREFIX}Ns"):
        gym.register(f"{PREFIX}Y-v0", entry_point=env_class(gym), kwargs={"namespace": "other"})


@case
def register_the_same_id_twice(gym):
    with registered(gym, f"{PREFIX}Twice-v0", f"{PREFIX}Twice-v0"):
        pass


# ---- make ------------------------------------------------------------------------------------
@case
def make_an_int_id(gym):
    gym.make(3)


@case
def make_a_spec_without_entry_point(gym):
    gym.make(spec(gym))


@case
def make_with_metadata_not_a_dict(gym):
    gym.make(spec(gym, entry_point=env_class(gym, metadata=("render_modes",))))


@case
def make_with_metadata_without_render_modes(gym):
    gym.make(spec(gym, entry_point=_with_dict_metadata(gym, render_fps=4))).close()


@case
def make_with_render_modes_not_iterable(gym):
    gym.make(spec(gym, entry_point=_with_dict_metadata(gym, render_modes=3))).close()


def _with_dict_metadata(gym, **metadata):
    cls = env_class(gym)
    return type("Custom", (cls,), {"metadata": metadata})


@case
def make_human_rendering_of_an_rgb_array_env(gym):
    cls = _with_dict_metadata(gym, render_modes=["rgb_array"], render_fps=4)
    gym.make(spec(gym, entry_point=cls), render_mode="human").close()


@case
def make_with_an_unsupported_render_mode(gym):
    cls = _with_dict_metadata(gym, render_modes=["rgb_array"], render_fps=4)
    gym.make(spec(gym, entry_point=cls), render_mode="ansi").close()


@case
def make_human_rendering_of_an_old_api_env(gym):
    base = env_class(gym)

    def old_init(self):
        base.__init__(self)

    cls = type(
        "OldApi",
        (base,),
        {"__init__": old_init, "metadata": {"render_modes": ["rgb_array"], "render_fps": 4}},
    )
    gym.make(spec(gym, entry_point=cls), render_mode="human")


@case
def make_with_an_unexpected_kwarg(gym):
    gym.make("CartPole-v1", bogus=1)


@case
def make_an_old_gym_env(gym):
    old_env = type("Env", (), {"__module__": "gym.core"})
    cls = type("OldGym", (old_env,), {"__init__": lambda self, **kwargs: None})
    gym.make(spec(gym, entry_point=cls))


@case
def make_something_that_is_not_an_env(gym):
    gym.make(spec(gym, entry_point=lambda **kwargs: object()))


@case
def make_an_entry_point_whose_wrappers_differ_from_the_spec(gym):
    def wrapped(**kwargs):
        return gym.wrappers.ClipReward(env_class(gym)(), min_reward=-1)

    env_spec = spec(
        gym, entry_point=wrapped, additional_wrappers=(wrapper_spec(gym, {"min_reward": 0}),)
    )
    gym.make(env_spec)


@case
def make_an_additional_wrapper_without_kwargs(gym):
    gym.make(spec(gym, entry_point=env_class(gym), additional_wrappers=(wrapper_spec(gym),)))


# ---- make_vec --------------------------------------------------------------------------------
def vector_spec(gym, **kwargs):
    return spec(gym, vector_entry_point=_vector_creator(gym), **kwargs)


def _vector_creator(gym):
    def create(num_envs=1, **kwargs):
        return gym.vector.SyncVectorEnv([env_class(gym)] * num_envs)

    return create


@case
def make_vec_an_int_id(gym):
    gym.make_vec(3)


@case
def make_vec_an_unknown_mode(gym):
    gym.make_vec("CartPole-v1", vectorization_mode="bogus")


@case
def make_vec_sync_without_entry_point(gym):
    gym.make_vec(vector_spec(gym), vectorization_mode="sync")


@case
def make_vec_async_without_entry_point(gym):
    gym.make_vec(vector_spec(gym), vectorization_mode="async")


@case
def make_vec_entry_point_mode_with_vector_kwargs(gym):
    gym.make_vec(vector_spec(gym), vectorization_mode="vector_entry_point", vector_kwargs={"a": 1})


@case
def make_vec_entry_point_mode_with_wrappers(gym):
    gym.make_vec(
        vector_spec(gym),
        vectorization_mode="vector_entry_point",
        wrappers=[gym.wrappers.ClipReward],
    )


@case
def make_vec_entry_point_mode_with_additional_wrappers(gym):
    env_spec = vector_spec(gym, additional_wrappers=(wrapper_spec(gym, {"min_reward": 0}),))
    gym.make_vec(env_spec, vectorization_mode="vector_entry_point")


@case
def make_vec_entry_point_mode_without_vector_entry_point(gym):
    gym.make_vec(spec(gym, entry_point=env_class(gym)), vectorization_mode="vector_entry_point")


@case
def make_vec_of_a_vector_env_without_autoreset_metadata(gym):
    def create(num_envs=1, **kwargs):
        env = gym.vector.SyncVectorEnv([env_class(gym)] * num_envs)
        env.metadata = {"render_modes": []}
        return env

    gym.make_vec(spec(gym, vector_entry_point=create)).close()


@case
def make_vec_of_a_vector_env_with_a_string_autoreset_mode(gym):
    def create(num_envs=1, **kwargs):
        env = gym.vector.SyncVectorEnv([env_class(gym)] * num_envs)
        env.metadata = {"autoreset_mode": "next_step"}
        return env

    gym.make_vec(spec(gym, vector_entry_point=create)).close()


# ---- beyond Gymnasium's own raise sites: errors from what registration calls -----------------
@case
def spec_to_json_with_unjsonable_kwargs(gym):
    spec(gym, entry_point="some.module:Env", kwargs={"dtype": np.float32}).to_json()


@case
def make_a_string_entry_point_of_a_missing_module(gym):
    gym.make(spec(gym, entry_point="no_such_module_zzqq:Env"))


@case
def make_a_string_entry_point_of_a_missing_attribute(gym):
    gym.make(spec(gym, entry_point="json:NoSuchEnv"))


@case
def make_a_string_entry_point_without_a_colon(gym):
    gym.make(spec(gym, entry_point="json.NoSuchEnv"))


@case
def make_with_max_episode_steps_zero(gym):
    gym.make("CartPole-v1", max_episode_steps=0)


@case
def register_a_malformed_id(gym):
    gym.register("not an id!", entry_point="json:loads")


@case
def make_vec_with_a_spec_kwarg_clash(gym):
    gym.make_vec("CartPole-v1", num_envs=2, vectorization_mode="sync", bogus=1)


@case
def pprint_registry_of_an_unknown_namespace(gym):
    gym.pprint_registry(exclude_namespaces=["zzqq"], disable_print=True)
    gym.make("zzqq/Thing-v0")


@functools.cache
def _old_step_api_env_class(gym: ModuleType) -> type:
    """An env whose ``step`` returns the pre-0.26 4-tuple ``(obs, reward, done, info)``."""

    class OldStepApi(env_class(gym)):
        def step(self, action):
            return np.zeros(2, np.float32), 0.0, False, {}

    return OldStepApi


@case
def make_an_env_whose_step_returns_the_old_four_tuple(gym):
    env = gym.make(spec(gym, entry_point=_old_step_api_env_class(gym)))
    env.reset(seed=0)
    env.step(0)
