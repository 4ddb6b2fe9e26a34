"""``make_vec``: vectorization modes, their errors, and the spec that rebuilds a vector env."""

from __future__ import annotations

import re

import numpy as np
import pytest

import palaestra as gym
from palaestra import error, spaces, vector
from palaestra.envs.registration import EnvSpec, VectorizeMode, WrapperSpec
from tests.envs.test_registration_envs import (
    HERE,
    SCALE_REWARD_ENTRY,
    CounterEnv,
    ScaleReward,
    clean_registry,  # noqa: F401 (autouse fixture)
    write_plugin_module,
)


class CounterVectorEnv(vector.VectorEnv):
    """A natively batched counter, standing in for a ``vector_entry_point``."""

    def __init__(self, num_envs: int, max_episode_steps: int | None = None, length: int = 3):
        self.num_envs = num_envs
        self.max_episode_steps = max_episode_steps
        self.length = length
        self.metadata = {"autoreset_mode": vector.AutoresetMode.NEXT_STEP}
        self.single_observation_space = spaces.Discrete(100)
        self.single_action_space = spaces.Discrete(2)
        self.observation_space = spaces.MultiDiscrete([100] * num_envs)
        self.action_space = spaces.MultiDiscrete([2] * num_envs)


class UnmarkedVectorEnv(CounterVectorEnv):
    """Leaves ``autoreset_mode`` out of its metadata."""

    def __init__(self, num_envs: int, **kwargs):
        super().__init__(num_envs, **kwargs)
        self.metadata = {}


def register_vector_counter(**register_kwargs) -> str:
    env_id = "RegTest/VectorCounter-v0"
    gym.register(
        env_id,
        entry_point=CounterEnv,
        vector_entry_point=CounterVectorEnv,
        max_episode_steps=8,
        kwargs={"length": 4},
        **register_kwargs,
    )
    return env_id


def register_counter_without_vector_entry_point() -> str:
    env_id = "RegTest/Counter-v0"
    gym.register(env_id, entry_point=CounterEnv, max_episode_steps=8, kwargs={"length": 4})
    return env_id


# --- choosing the mode -------------------------------------------------------------------------


def test_no_mode_uses_the_vector_entry_point_when_registered():
    envs = gym.make_vec(register_vector_counter(), num_envs=3)
    assert isinstance(envs, CounterVectorEnv)
    assert envs.num_envs == 3


def test_no_mode_without_vector_entry_point_is_sync():
    envs = gym.make_vec(register_counter_without_vector_entry_point(), num_envs=2)
    assert isinstance(envs, vector.SyncVectorEnv)
    envs.close()


@pytest.mark.parametrize("mode", ["sync", VectorizeMode.SYNC])
def test_sync_mode_accepts_string_or_enum(mode):
    envs = gym.make_vec(register_vector_counter(), num_envs=2, vectorization_mode=mode)
    assert isinstance(envs, vector.SyncVectorEnv)
    assert envs.spec.kwargs["vectorization_mode"] == "sync"
    envs.close()


def test_async_mode_builds_an_async_vector_env():
    envs = gym.make_vec("CartPole-v1", num_envs=2, vectorization_mode="async")
    try:
        assert isinstance(envs, vector.AsyncVectorEnv)
        observations, _ = envs.reset(seed=0)
        assert observations.shape == (2, 4)
    finally:
        envs.close()


def test_unknown_mode_lists_the_valid_modes():
    valid = [mode.value for mode in VectorizeMode]
    assert valid[:3] == ["async", "sync", "vector_entry_point"]
    with pytest.raises(
        ValueError,
        match=re.escape(
            f"Invalid vectorization mode: 'threads', valid modes: {valid[:3]}, "
            f"and palaestra's {valid[3:]}"
        ),
    ):
        gym.make_vec("CartPole-v1", vectorization_mode="threads")


def test_invalid_id_type_raises():
    with pytest.raises(
        error.Error, match=re.escape("Invalid id type: <class 'int'>. Expected `str` or `EnvSpec`")
    ):
        gym.make_vec(3)


def test_unknown_id_raises_with_suggestion():
    with pytest.raises(error.NameNotFound, match=re.escape("Did you mean: `CartPole`?")):
        gym.make_vec("CartPol-v1")


# --- arguments ---------------------------------------------------------------------------------


def test_kwargs_reach_every_sub_env_over_the_spec_kwargs():
    env_id = register_counter_without_vector_entry_point()
    envs = gym.make_vec(env_id, num_envs=2, vectorization_mode="sync", start=5)
    assert [(env.unwrapped.length, env.unwrapped.start) for env in envs.envs] == [(4, 5), (4, 5)]
    envs.close()


def test_render_mode_reaches_sub_envs_and_is_recorded():
    envs = gym.make_vec(
        register_vector_counter(), num_envs=2, vectorization_mode="sync", render_mode="rgb_array"
    )
    assert envs.render_mode == "rgb_array"
    assert [env.render_mode for env in envs.envs] == ["rgb_array", "rgb_array"]
    assert envs.spec.kwargs["render_mode"] == "rgb_array"
    envs.close()


def test_sub_envs_get_the_standard_wrappers():
    envs = gym.make_vec(register_vector_counter(), num_envs=1, vectorization_mode="sync")
    assert repr(envs.envs[0]) == (
        "<TimeLimit<OrderEnforcing<PassiveEnvChecker<CounterEnv<RegTest/VectorCounter-v0>>>>>"
    )
    envs.close()


def test_vector_kwargs_reach_the_vector_env():
    envs = gym.make_vec(
        register_vector_counter(),
        num_envs=2,
        vectorization_mode="sync",
        vector_kwargs={"autoreset_mode": vector.AutoresetMode.SAME_STEP},
    )
    assert envs.metadata["autoreset_mode"] is vector.AutoresetMode.SAME_STEP
    envs.close()


def test_wrappers_apply_to_each_sub_env_in_order():
    envs = gym.make_vec(
        register_vector_counter(),
        num_envs=2,
        vectorization_mode="sync",
        wrappers=[lambda env: ScaleReward(env, scale=3.0), gym.wrappers.RecordEpisodeStatistics],
    )
    for sub_env in envs.envs:
        assert type(sub_env).__name__ == "RecordEpisodeStatistics"
        assert isinstance(sub_env.env, ScaleReward)
    envs.reset(seed=0)
    _, rewards, _, _, _ = envs.step(np.zeros(2, dtype=np.int64))
    assert rewards.tolist() == [3.0, 3.0]
    envs.close()


def test_vector_entry_point_gets_kwargs_and_the_spec_step_limit():
    envs = gym.make_vec(register_vector_counter(), num_envs=2, length=6)
    assert (envs.length, envs.max_episode_steps) == (6, 8)


def test_vector_entry_point_step_limit_can_be_overridden():
    envs = gym.make_vec(register_vector_counter(), num_envs=2, max_episode_steps=3)
    assert envs.max_episode_steps == 3


def test_string_vector_entry_point_is_loaded():
    gym.register(
        "RegTest/StringVector-v0",
        vector_entry_point=f"{__name__}:CounterVectorEnv",
    )
    assert isinstance(gym.make_vec("RegTest/StringVector-v0", num_envs=2), CounterVectorEnv)


def test_vector_entry_point_mode_rejects_vector_kwargs():
    with pytest.raises(
        error.Error,
        match=re.escape(
            "Custom vector environment can be passed arguments only through kwargs and "
            "`vector_kwargs` is not empty ({'copy': False})"
        ),
    ):
        gym.make_vec(register_vector_counter(), vector_kwargs={"copy": False})


def test_vector_entry_point_mode_rejects_wrappers():
    with pytest.raises(
        error.Error,
        match=re.escape("Cannot use `vector_entry_point` vectorization mode with the wrappers"),
    ):
        gym.make_vec(register_vector_counter(), wrappers=[ScaleReward])


def test_vector_entry_point_mode_rejects_a_spec_with_additional_wrappers():
    wrapper = WrapperSpec("ScaleReward", SCALE_REWARD_ENTRY, {"scale": 2.0})
    env_id = register_vector_counter(additional_wrappers=(wrapper,))
    with pytest.raises(
        error.Error,
        match=re.escape(
            "Cannot use `vector_entry_point` vectorization mode with the additional_wrappers "
            "parameter in spec being not empty"
        ),
    ):
        gym.make_vec(env_id)


def test_vector_entry_point_mode_without_one_raises():
    env_id = register_counter_without_vector_entry_point()
    with pytest.raises(
        error.Error,
        match=re.escape(
            f"Cannot create vectorized environment for {env_id} because it doesn't have a "
            "vector entry point defined."
        ),
    ):
        gym.make_vec(env_id, vectorization_mode="vector_entry_point")


@pytest.mark.parametrize("mode", ["sync", "async"])
def test_python_modes_without_entry_point_raise(mode):
    gym.register("RegTest/VectorOnly-v0", vector_entry_point=CounterVectorEnv)
    with pytest.raises(
        error.Error,
        match=re.escape(
            "Cannot create vectorized environment for RegTest/VectorOnly-v0 because it doesn't "
            "have an entry point defined."
        ),
    ):
        gym.make_vec("RegTest/VectorOnly-v0", vectorization_mode=mode)


def test_vector_env_without_autoreset_metadata_warns():
    gym.register("RegTest/Unmarked-v0", vector_entry_point=UnmarkedVectorEnv)
    with pytest.warns(UserWarning, match="is missing AutoresetMode metadata"):
        gym.make_vec("RegTest/Unmarked-v0", num_envs=2)


def test_module_prefixed_id_imports_the_module(tmp_path, monkeypatch):
    plugin = write_plugin_module(tmp_path, monkeypatch)
    envs = gym.make_vec(f"{plugin}:Plugin/Imported-v0", num_envs=2)
    assert envs.spec.id == "Plugin/Imported-v0"
    envs.close()


# --- the recorded spec -------------------------------------------------------------------------


def test_spec_records_mode_and_num_envs():
    envs = gym.make_vec(register_vector_counter(), num_envs=2, vectorization_mode="sync")
    assert envs.spec.kwargs == {"length": 4, "num_envs": 2, "vectorization_mode": "sync"}
    envs.close()


def test_spec_leaves_out_a_single_env_and_empty_arguments():
    envs = gym.make_vec(register_vector_counter(), vectorization_mode="sync")
    assert envs.spec.kwargs == {"length": 4, "vectorization_mode": "sync"}
    envs.close()


def test_spec_records_vector_kwargs_and_wrappers():
    wrappers = [gym.wrappers.RecordEpisodeStatistics]
    envs = gym.make_vec(
        register_vector_counter(),
        num_envs=2,
        vectorization_mode="sync",
        vector_kwargs={"copy": False},
        wrappers=wrappers,
        start=1,
    )
    assert envs.spec.kwargs == {
        "length": 4,
        "start": 1,
        "num_envs": 2,
        "vectorization_mode": "sync",
        "vector_kwargs": {"copy": False},
        "wrappers": wrappers,
    }
    envs.close()


def test_spec_of_vector_entry_point_records_the_step_limit():
    envs = gym.make_vec(register_vector_counter(), num_envs=2)
    assert envs.spec.kwargs == {
        "length": 4,
        "max_episode_steps": 8,
        "num_envs": 2,
        "vectorization_mode": "vector_entry_point",
    }


def test_spec_keeps_the_registered_fields():
    envs = gym.make_vec(register_vector_counter(), num_envs=2)
    registered = gym.spec("RegTest/VectorCounter-v0")
    assert envs.spec.id == registered.id
    assert envs.spec.max_episode_steps == registered.max_episode_steps
    assert envs.spec.vector_entry_point is CounterVectorEnv
    assert registered.kwargs == {"length": 4}


@pytest.mark.parametrize(
    "make_vec_kwargs",
    [
        {"num_envs": 3},
        {"num_envs": 2, "vectorization_mode": "sync", "start": 2},
        {
            "num_envs": 2,
            "vectorization_mode": "sync",
            "vector_kwargs": {"copy": False},
            "wrappers": [gym.wrappers.RecordEpisodeStatistics],
        },
    ],
)
def test_make_vec_from_spec_rebuilds_the_vector_env(make_vec_kwargs):
    envs = gym.make_vec(register_vector_counter(), **make_vec_kwargs)
    rebuilt = gym.make_vec(envs.spec)
    assert type(rebuilt) is type(envs)
    assert rebuilt.num_envs == envs.num_envs
    assert rebuilt.spec == envs.spec
    if isinstance(envs, vector.SyncVectorEnv):
        assert [repr(env) for env in rebuilt.envs] == [repr(env) for env in envs.envs]
        envs.close()
        rebuilt.close()


def test_make_vec_accepts_an_unregistered_spec():
    spec = EnvSpec("RegTest/Loose-v0", entry_point=f"{HERE}:CounterEnv", kwargs={"length": 2})
    envs = gym.make_vec(spec, num_envs=2)
    assert isinstance(envs, vector.SyncVectorEnv)
    assert [env.unwrapped.length for env in envs.envs] == [2, 2]
    envs.close()


# --- against Gymnasium --------------------------------------------------------------------------


def identity(env):
    return env


@pytest.mark.parametrize(
    "make_vec_kwargs",
    [
        {"num_envs": 2},
        {"num_envs": 1, "vectorization_mode": "sync"},
        {"num_envs": 2, "vectorization_mode": "sync", "wrappers": [identity]},
        {"num_envs": 2, "vectorization_mode": "sync", "vector_kwargs": {"copy": False}},
        {"num_envs": 2, "vectorization_mode": "vector_entry_point", "sutton_barto_reward": True},
        {"num_envs": 2, "vectorization_mode": "async"},
    ],
)
def test_cartpole_vector_spec_matches_gymnasium(make_vec_kwargs):
    gymnasium = pytest.importorskip("gymnasium")
    ours = gym.make_vec("CartPole-v1", **make_vec_kwargs)
    theirs = gymnasium.make_vec("CartPole-v1", **make_vec_kwargs)
    try:
        assert repr(ours) == repr(theirs)
        assert ours.spec.kwargs == theirs.spec.kwargs
        assert ours.spec.max_episode_steps == theirs.spec.max_episode_steps
    finally:
        ours.close()
        theirs.close()
