"""Per-sub-env parameters (domain randomisation) on the natively batched envs.

The reference is always a sync vector env of single envs, each with its own value set on
the env itself, as a Gymnasium user would: a native batch given the same values (at
construction or with ``set_attr``, in any mode) returns the same trajectory bit for bit.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest

import palaestra as gym
from palaestra.vector.contract import assert_same, rollout
from palaestra.vector.native import numba_available

NUM_ENVS = 4
STEPS = 250
# Rows 0 and 3 share their values: the batch mixes shared and differing parameter sets.
VALUES: dict[str, dict[str, list[Any]]] = {
    "CartPole-v1": {"gravity": [9.8, 15.0, 4.0, 9.8], "masspole": [0.1, 0.3, 0.05, 0.1]},
    "MountainCar-v0": {
        "force": [0.001, 0.003, 0.0015, 0.001],
        "gravity": [0.0025, 0.002, 0.003, 0.0025],
    },
    "MountainCarContinuous-v0": {
        "power": [0.0015, 0.004, 0.003, 0.0015],
        "max_speed": [0.07, 0.05, 0.09, 0.07],
    },
    "Pendulum-v1": {"g": [10.0, 9.81, 1.62, 10.0], "max_torque": [2.0, 1.0, 3.0, 2.0]},
    "Acrobot-v1": {"LINK_MASS_1": [1.0, 0.5, 1.5, 1.0], "dt": [0.2, 0.1, 0.25, 0.2]},
}
# Short episodes, so that every autoreset path runs several times.
EPISODE_STEPS = {"MountainCarContinuous-v0": 120, "Pendulum-v1": 60, "Acrobot-v1": 120}
ACCELERATORS = [
    "numpy",
    pytest.param("numba", marks=pytest.mark.skipif(not numba_available(), reason="needs numba")),
]


def _limit(env_id: str) -> dict[str, Any]:
    steps = EPISODE_STEPS.get(env_id)
    return {} if steps is None else {"max_episode_steps": steps}


def _single_env_with(
    env_id: str, values: dict[str, Any], autoreset_mode: str = "NextStep", num_envs: int = NUM_ENVS
):
    """Return a sync vector env whose sub-env ``i`` has row ``i`` of ``values`` set."""

    def build(index: int) -> Any:
        env = gym.make(env_id, **_limit(env_id))
        for name, column in values.items():
            setattr(env.unwrapped, name, column[index])
        return env

    return gym.vector.SyncVectorEnv(
        [lambda i=i: build(i) for i in range(num_envs)], autoreset_mode=autoreset_mode
    )


def _actions(env_id: str, steps: int = STEPS, seed: int = 5, num_envs: int = NUM_ENVS) -> list:
    space = gym.make_vec(env_id, num_envs, vectorization_mode="sync").action_space
    space.seed(seed)
    return [space.sample() for _ in range(steps)]


def _record(envs: Any, actions: list[Any]) -> list[Any]:
    try:
        return rollout(envs, actions, seed=3)
    finally:
        envs.close()


@pytest.mark.parametrize("accelerator", ACCELERATORS)
@pytest.mark.parametrize("autoreset_mode", ["NextStep", "SameStep", "Disabled"])
@pytest.mark.parametrize("env_id", list(VALUES))
def test_make_vec_values_per_sub_env_match_single_envs_each_set_with_its_own(
    env_id, autoreset_mode, accelerator
):
    values = VALUES[env_id]
    actions = _actions(env_id)
    native = gym.make_vec(
        env_id,
        NUM_ENVS,
        accelerator=accelerator,
        autoreset_mode=autoreset_mode,
        **_limit(env_id),
        **values,
    )
    assert native.row_params is not None
    expected = _record(_single_env_with(env_id, values, autoreset_mode), actions)
    assert_same(_record(native, actions), expected, env_id)


@pytest.mark.parametrize("accelerator", ACCELERATORS)
@pytest.mark.parametrize(
    "env_id, ranges",
    [
        ("CartPole-v1", {"gravity": (5.0, 15.0), "masspole": (0.05, 0.3)}),
        ("MountainCar-v0", {"force": (0.0008, 0.003), "max_speed": (0.05, 0.08)}),
        ("Pendulum-v1", {"g": (1.0, 12.0), "l": (0.5, 1.5)}),
    ],
)
def test_every_sub_env_randomised_matches_single_envs(env_id, ranges, accelerator):
    # Domain randomisation: no two rows share a parameter set.
    num_envs = 48
    rng = np.random.default_rng(8)
    values = {name: rng.uniform(*bounds, num_envs).tolist() for name, bounds in ranges.items()}
    actions = _actions(env_id, steps=120, num_envs=num_envs)
    native = gym.make_vec(env_id, num_envs, accelerator=accelerator, **_limit(env_id), **values)
    expected = _single_env_with(env_id, values, num_envs=num_envs)
    assert_same(_record(native, actions), _record(expected, actions), env_id)


@pytest.mark.parametrize("accelerator", ACCELERATORS)
@pytest.mark.parametrize("env_id", list(VALUES))
def test_set_attr_mid_run_changes_each_sub_env_as_in_sync(env_id, accelerator):
    values = VALUES[env_id]
    actions = _actions(env_id, steps=120)
    runs = []
    for envs in (
        gym.make_vec(env_id, NUM_ENVS, vectorization_mode="sync", **_limit(env_id)),
        gym.make_vec(env_id, NUM_ENVS, accelerator=accelerator, **_limit(env_id)),
    ):
        trace = rollout(envs, actions[:40], seed=3)
        for name, column in values.items():
            envs.set_attr(name, column)
        trace += [envs.step(action) for action in actions[40:]]
        runs.append(trace)
        envs.close()
    assert_same(runs[1], runs[0], env_id)


@pytest.mark.parametrize("accelerator", ACCELERATORS)
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("limits", [[2.0, 0.7, 2.9, 1], [2.0] * NUM_ENVS], ids=["rows", "shared"])
def test_torque_limits_clip_actions_of_either_precision_as_single_envs(limits, dtype, accelerator):
    rng = np.random.default_rng(4)
    actions = [rng.uniform(-3, 3, (NUM_ENVS, 1)).astype(dtype) for _ in range(80)]
    values = {"max_torque": limits}
    native = gym.make_vec(
        "Pendulum-v1", NUM_ENVS, accelerator=accelerator, **_limit("Pendulum-v1"), **values
    )
    expected = _record(_single_env_with("Pendulum-v1", values), actions)
    assert_same(_record(native, actions), expected, str(dtype))


@pytest.mark.skipif(not numba_available(), reason="needs numba")
def test_compiled_loops_for_several_parameter_sets_in_one_process_keep_their_own():
    actions = _actions("CartPole-v1", steps=60)
    settings = [
        {},
        {"tau": [0.01] * NUM_ENVS},
        {"gravity": 20.0},
        {"gravity": [3.0] * 3 + [4.0]},
    ]
    for kwargs in settings:
        compiled = gym.make_vec("CartPole-v1", NUM_ENVS, accelerator="numba", **kwargs)
        plain = gym.make_vec("CartPole-v1", NUM_ENVS, accelerator="numpy", **kwargs)
        assert_same(_record(compiled, actions), _record(plain, actions), str(kwargs))


def test_get_attr_returns_one_value_per_sub_env():
    envs = gym.make_vec("CartPole-v1", 3, gravity=[9.8, 1.6, 24.8])
    assert envs.get_attr("gravity") == (9.8, 1.6, 24.8)
    assert envs.get_attr("masspole") == (0.1, 0.1, 0.1)
    envs.set_attr("masspole", 0.4)
    assert envs.get_attr("masspole") == (0.4, 0.4, 0.4)


def test_the_spec_rebuilds_the_values_per_sub_env():
    envs = gym.make_vec("CartPole-v1", 3, gravity=[9.8, 1.6, 24.8])
    assert gym.make_vec(envs.spec).get_attr("gravity") == (9.8, 1.6, 24.8)


def test_one_value_for_all_keeps_the_shared_path_and_its_results():
    actions = _actions("CartPole-v1", steps=100)
    native = gym.make_vec("CartPole-v1", NUM_ENVS)
    native.set_attr("gravity", 20.0)
    assert native.row_params is None
    assert native.params.gravity == 20.0
    expected = _single_env_with("CartPole-v1", {"gravity": [20.0] * NUM_ENVS})
    assert_same(_record(native, actions), _record(expected, actions), "shared gravity")


def test_equal_values_per_sub_env_return_to_the_shared_path():
    envs = gym.make_vec("Pendulum-v1", 2, g=[9.0, 3.0])
    assert envs.row_params is not None
    envs.set_attr("g", [5.0, 5.0])
    assert envs.row_params is None
    assert envs.get_attr("g") == (5.0, 5.0)


def test_constructor_argument_as_one_value_still_reaches_the_single_env():
    envs = gym.make_vec("Pendulum-v1", 2, g=9.81)
    assert envs.row_params is None
    assert envs.single_env.params.g == 9.81


def test_array_of_values_is_one_per_sub_env_at_construction():
    envs = gym.make_vec("MountainCar-v0", 3, force=np.array([0.001, 0.002, 0.003]))
    assert envs.get_attr("force") == (0.001, 0.002, 0.003)


def test_numpy_scalars_are_stored_as_the_python_numbers_they_hold():
    envs = gym.make_vec("MountainCar-v0", 2, accelerator="numpy")
    envs.set_attr("force", [np.float64(0.002), np.float32(0.5)])
    assert envs.get_attr("force") == (0.002, 0.5)
    assert [type(value) for value in envs.get_attr("force")] == [float, float]


def test_the_documented_example_runs():
    page = (Path(__file__).parents[2] / "docs" / "native_batching.md").read_text()
    section = page.split("Per-sub-env parameters (domain randomisation)")[1]
    example = section.split("```python\n")[1].split("```")[0]
    exec(compile(example, "native_batching.md", "exec"), {})


def test_frames_are_drawn_with_each_sub_env_s_parameters():
    pytest.importorskip("pygame")
    envs = gym.make_vec("CartPole-v1", 2, render_mode="rgb_array", length=[0.5, 1.5])
    envs.reset(seed=0)
    first, second = envs.render()
    assert not np.array_equal(first, second)
    single = gym.make("CartPole-v1", render_mode="rgb_array")
    single.unwrapped.length = 1.5
    single.reset(seed=1)
    assert np.array_equal(second, single.render())


@pytest.mark.parametrize(
    "mode, vector_kwargs",
    [
        ("sync", {}),
        ("async", {"context": "fork"}),
        ("vector_entry_point", {}),
        ("pool", {"num_workers": 2}),
    ],
)
def test_set_attr_per_sub_env_gives_the_same_results_in_every_mode(mode, vector_kwargs):
    actions = _actions("CartPole-v1", steps=150)
    envs = gym.make_vec(
        "CartPole-v1", NUM_ENVS, vectorization_mode=mode, vector_kwargs=vector_kwargs
    )
    try:
        for name, column in VALUES["CartPole-v1"].items():
            envs.set_attr(name, column)
        assert envs.get_attr("gravity") == tuple(VALUES["CartPole-v1"]["gravity"])
        actual = rollout(envs, actions, seed=3)
    finally:
        envs.close()
    expected = _record(_single_env_with("CartPole-v1", VALUES["CartPole-v1"]), actions)
    assert_same(actual, expected, mode)


def test_per_sub_env_set_attr_through_a_pool_of_native_groups_reaches_each_group_s_rows():
    # Issue 28, item 8: the pool's native groups refused set_attr with differing values.
    envs = gym.make_vec(
        "CartPole-v1", NUM_ENVS, vectorization_mode="pool", vector_kwargs={"num_workers": 2}
    )
    try:
        assert envs.vector_env_fn is not None
        envs.set_attr("gravity", [1.0, 2.0, 3.0, 4.0])
        assert envs.get_attr("gravity") == (1.0, 2.0, 3.0, 4.0)
    finally:
        envs.close()


def test_make_vec_values_per_sub_env_reach_a_pool_s_groups():
    actions = _actions("Pendulum-v1", steps=80)
    values = VALUES["Pendulum-v1"]
    envs = gym.make_vec(
        "Pendulum-v1",
        NUM_ENVS,
        vectorization_mode="pool",
        vector_kwargs={"num_workers": 2},
        max_episode_steps=60,
        **values,
    )
    assert envs.get_attr("g") == tuple(values["g"])
    expected = _record(_single_env_with("Pendulum-v1", values), actions)
    assert_same(_record(envs, actions), expected, "pool")


@pytest.mark.slow
def test_set_attr_per_sub_env_through_ray_matches_sync():
    ray = pytest.importorskip("ray")
    ray.init(address="local", num_cpus=2, include_dashboard=False, log_to_driver=False)
    try:
        actions = _actions("CartPole-v1", steps=100)
        envs = gym.make_vec(
            "CartPole-v1",
            NUM_ENVS,
            vectorization_mode="ray",
            vector_kwargs={"num_workers": 2},
            gravity=VALUES["CartPole-v1"]["gravity"],
        )
        envs.set_attr("masspole", VALUES["CartPole-v1"]["masspole"])
        assert envs.get_attr("gravity") == tuple(VALUES["CartPole-v1"]["gravity"])
        actual = _record(envs, actions)
    finally:
        ray.shutdown()
    expected = _record(_single_env_with("CartPole-v1", VALUES["CartPole-v1"]), actions)
    assert_same(actual, expected, "ray")


# Bad input ----------------------------------------------------------------------------------


def test_a_list_of_the_wrong_length_is_a_value_error():
    envs = gym.make_vec("CartPole-v1", 3)
    with pytest.raises(ValueError, match="Got `2` values for 3 environments"):
        envs.set_attr("gravity", [9.8, 1.0])


def test_a_value_that_is_not_a_number_is_a_value_error_naming_it():
    envs = gym.make_vec("CartPole-v1", 2)
    with pytest.raises(ValueError, match=r"'gravity'.*'strong' \(str\) for sub-env 1.*real number"):
        envs.set_attr("gravity", [9.8, "strong"])
    assert envs.get_attr("gravity") == (9.8, 9.8)


def test_an_array_given_to_set_attr_is_one_value_and_refused_for_a_number():
    envs = gym.make_vec("CartPole-v1", 2)
    with pytest.raises(ValueError, match="real number"):
        envs.set_attr("gravity", np.array([9.8, 1.0]))


def test_differing_choices_are_refused_with_what_to_do():
    envs = gym.make_vec("CartPole-v1", 2)
    with pytest.raises(ValueError, match="'kinematics_integrator' must be the same"):
        envs.set_attr("kinematics_integrator", ["euler", "semi-implicit euler"])
    with pytest.raises(ValueError, match="'torque_noise_max' must be the same"):
        gym.make_vec("Acrobot-v1", 2, torque_noise_max=[0.0, 0.1])


def test_a_choice_the_parameters_refuse_is_their_value_error():
    envs = gym.make_vec("CartPole-v1", 2)
    with pytest.raises(ValueError, match="Unknown kinematics_integrator 'rk4'"):
        envs.set_attr("kinematics_integrator", "rk4")


def test_one_choice_for_all_is_set():
    envs = gym.make_vec("CartPole-v1", 2)
    envs.set_attr("kinematics_integrator", "semi-implicit euler")
    assert envs.params.kinematics_integrator == "semi-implicit euler"


def test_an_attribute_that_is_not_a_parameter_cannot_be_set():
    envs = gym.make_vec("CartPole-v1", 2)
    with pytest.raises(AttributeError, match=r"'observation_space'.*parameters are: force_mag"):
        envs.set_attr("observation_space", None)


def test_an_unknown_parameter_at_construction_is_a_type_error_listing_them():
    with pytest.raises(TypeError, match=r"\['gravty'\].*parameters are: force_mag, gravity"):
        gym.make_vec("CartPole-v1", 2, gravty=[1.0, 2.0])


def test_reading_an_unknown_attribute_is_an_attribute_error():
    envs = gym.make_vec("CartPole-v1", 2)
    with pytest.raises(AttributeError, match="no attribute 'gravty'"):
        envs.get_attr("gravty")
