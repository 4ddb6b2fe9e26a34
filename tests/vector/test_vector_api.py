"""Behaviour shared by SyncVectorEnv and AsyncVectorEnv, checked on both."""

from __future__ import annotations

from functools import partial

import numpy as np
import pytest

import palaestra
from palaestra.spaces import Box, Discrete
from palaestra.vector import AsyncVectorEnv, AutoresetMode, SyncVectorEnv
from tests.vector.helpers import PalaestraInfoEnv, healthy_env

KINDS = ["sync", "async"]


def build(kind: str, env_fns, **kwargs):
    if kind == "sync":
        return SyncVectorEnv(env_fns, **kwargs)
    return AsyncVectorEnv(env_fns, context="fork", **kwargs)


@pytest.fixture(params=KINDS)
def kind(request):
    return request.param


@pytest.fixture
def make(kind, no_leaks):
    """Build vector envs of the parametrized kind and close them after the test."""
    built = []

    def _make(env_fns, **kwargs):
        envs = build(kind, env_fns, **kwargs)
        built.append(envs)
        return envs

    yield _make
    for envs in built:
        envs.close()


def cartpoles(n: int = 3, **kwargs):
    return [lambda: palaestra.make("CartPole-v1", **kwargs)] * n


def test_attributes_describe_the_batch(make, kind):
    envs = make(cartpoles(3))
    assert envs.num_envs == 3
    assert envs.single_action_space == Discrete(2)
    assert envs.action_space == palaestra.spaces.MultiDiscrete([2, 2, 2])
    assert envs.observation_space.shape == (3, 4)
    assert envs.single_observation_space.shape == (4,)
    assert envs.metadata["autoreset_mode"] is AutoresetMode.NEXT_STEP
    assert envs.metadata["render_fps"] == 50
    assert envs.render_mode is None
    assert envs.spec is None
    assert envs.unwrapped is envs
    assert not envs.closed
    expected = "SyncVectorEnv(num_envs=3)" if kind == "sync" else "AsyncVectorEnv(num_envs=3)"
    assert repr(envs) == expected


def test_autoreset_mode_accepts_its_value_string(make):
    envs = make(cartpoles(2), autoreset_mode="SameStep")
    assert envs.autoreset_mode is AutoresetMode.SAME_STEP
    assert envs.metadata["autoreset_mode"] is AutoresetMode.SAME_STEP


def test_unknown_autoreset_mode_is_a_value_error(kind):
    with pytest.raises(ValueError, match="'Sometimes' is not a valid AutoresetMode"):
        build(kind, cartpoles(2), autoreset_mode="Sometimes")


def test_int_seed_seeds_sub_envs_consecutively(make):
    envs = make(cartpoles(3))
    envs.reset(seed=10)
    assert envs.np_random_seed == (10, 11, 12)


def test_list_seed_seeds_each_sub_env(make):
    envs = make(cartpoles(3))
    observations, _ = envs.reset(seed=[5, None, 7])
    single, _ = palaestra.make("CartPole-v1").reset(seed=7)
    np.testing.assert_array_equal(observations[2], single)
    assert envs.np_random_seed[0] == 5 and envs.np_random_seed[2] == 7


def test_seed_list_of_wrong_length_is_a_value_error(make):
    envs = make(cartpoles(3))
    with pytest.raises(ValueError) as caught:
        envs.reset(seed=[1, 2])
    assert str(caught.value) == (
        "If seeds are passed as a list the length must match num_envs=3 but got length=2."
    )


def test_reset_mask_resets_only_the_masked_sub_envs(make):
    envs = make(cartpoles(3))
    first, _ = envs.reset(seed=0)
    envs.step(np.array([1, 1, 1]))
    stepped, _ = envs.reset(options={"reset_mask": np.array([True, False, False])})
    second, _ = envs.reset(
        seed=[0, None, None], options={"reset_mask": np.array([True, False, True])}
    )
    np.testing.assert_array_equal(second[0], first[0])
    np.testing.assert_array_equal(second[1], stepped[1])
    assert not np.array_equal(stepped[1], first[1])


def test_reset_mask_is_not_passed_on_and_options_are_not_modified(make):
    envs = make([PalaestraInfoEnv] * 2)
    envs.reset(seed=0)
    options = {"reset_mask": np.array([False, True]), "level": 3}
    _, infos = envs.reset(options=options)
    assert infos["options"]["level"].tolist() == [0, 3]
    assert infos["options"]["_level"].tolist() == [False, True]
    assert infos["_options"].tolist() == [False, True]
    assert set(options) == {"reset_mask", "level"}


@pytest.mark.parametrize(
    ("mask", "error", "message"),
    [
        (
            [True, False],
            TypeError,
            "`options['reset_mask']` must be a numpy array, got <class 'list'>",
        ),
        (np.array([True]), ValueError, "`options['reset_mask']` must have shape `(2,)`, got (1,)"),
        (
            np.array([1, 0]),
            TypeError,
            "`options['reset_mask']` must have `dtype=np.bool_`, got int64",
        ),
        (
            np.array([False, False]),
            ValueError,
            "`options['reset_mask']` must contain a boolean array with at least one True value, "
            "got reset_mask=[False False]",
        ),
    ],
)
def test_bad_reset_mask_is_rejected(make, mask, error, message):
    envs = make(cartpoles(2))
    with pytest.raises(error) as caught:
        envs.reset(options={"reset_mask": mask})
    assert str(caught.value) == message


def test_copy_false_returns_the_internal_buffer(make):
    envs = make(cartpoles(2), copy=False)
    first, _ = envs.reset(seed=0)
    second, *_ = envs.step(np.array([0, 1]))
    assert first is second or np.shares_memory(first, second)


def test_copy_true_returns_independent_arrays(make):
    envs = make(cartpoles(2))
    first, _ = envs.reset(seed=0)
    kept = first.copy()
    envs.step(np.array([0, 1]))
    np.testing.assert_array_equal(first, kept)


def test_next_step_autoreset_returns_zero_reward_and_ignores_the_action(make):
    envs = make([partial(PalaestraInfoEnv, episode_length=1)] * 2)
    envs.reset(seed=0)
    _, _, _, truncations, _ = envs.step(np.array([0, 0]))
    assert truncations.tolist() == [True, True]
    observations, rewards, terminations, truncations, infos = envs.step(np.array([2, 2]))
    assert rewards.tolist() == [0.0, 0.0]
    assert terminations.tolist() == [False, False] and truncations.tolist() == [False, False]
    assert infos["start"].tolist() == [True, True]
    assert observations["phase"].tolist() == [0, 0]


def test_same_step_autoreset_puts_the_final_obs_and_info_in_info(make):
    envs = make([partial(PalaestraInfoEnv, episode_length=1)] * 2, autoreset_mode="SameStep")
    envs.reset(seed=0)
    observations, _, _, truncations, infos = envs.step(np.array([0, 0]))
    assert truncations.tolist() == [True, True]
    assert observations["phase"].tolist() == [0, 0]
    assert infos["_final_obs"].tolist() == [True, True]
    assert infos["final_obs"].dtype == object
    assert infos["final_obs"][0]["phase"] == 1
    assert infos["final_info"]["step"].tolist() == [1, 1]
    assert infos["final_info"]["_step"].tolist() == [True, True]
    assert infos["start"].tolist() == [True, True]


def test_disabled_autoreset_refuses_to_step_an_ended_sub_env(make):
    envs = make([partial(PalaestraInfoEnv, episode_length=1)] * 2, autoreset_mode="Disabled")
    envs.reset(seed=0)
    envs.step(np.array([0, 0]))
    with pytest.raises(RuntimeError, match=r"stepped after .*episode ended .*DISABLED"):
        envs.step(np.array([0, 0]))
    envs.reset(options={"reset_mask": np.array([True, True])})
    envs.step(np.array([0, 0]))


def test_wrong_number_of_actions_is_a_value_error(make):
    envs = make(cartpoles(2))
    envs.reset()
    with pytest.raises(ValueError, match="Expected a batch of 2 actions"):
        envs.step(np.array([0, 1, 1]))


def test_observation_mode_same_rejects_different_spaces(kind):
    fns = [
        lambda: palaestra.make("CartPole-v1"),
        lambda: palaestra.make("MountainCar-v0"),
    ]
    with pytest.raises(RuntimeError, match=r"observation_mode='same'.*Sub-environment 1"):
        build(kind, fns)


def test_action_space_mismatch_names_the_sub_env(kind):
    class OtherActions(palaestra.Wrapper):
        def __init__(self, env):
            super().__init__(env)
            self.action_space = Discrete(3)

    fns = [healthy_env, lambda: OtherActions(healthy_env())]
    with pytest.raises(RuntimeError, match=r"Sub-environment 1 .*action_space=Discrete\(3\)"):
        build(kind, fns)


class _Bounded(palaestra.Wrapper):
    def __init__(self, env, high):
        super().__init__(env)
        self.observation_space = Box(-high, high, shape=(2,))


def test_observation_mode_different_batches_differing_bounds(make):
    fns = [lambda: _Bounded(healthy_env(), 1.0), lambda: _Bounded(healthy_env(), 2.0)]
    envs = make(fns, observation_mode="different")
    assert envs.observation_space.high.tolist() == [[1.0, 1.0], [2.0, 2.0]]


def test_observation_mode_pair_sets_batched_then_single_space(make):
    single, batched = Box(-5, 5, shape=(2,)), Box(-5, 5, shape=(2, 2))
    envs = make([healthy_env] * 2, observation_mode=(batched, single))
    assert envs.observation_space is batched and envs.single_observation_space is single


def test_observation_mode_pair_must_hold_spaces(kind):
    with pytest.raises(TypeError, match="Expected both elements of observation_mode to be Spaces"):
        build(kind, [healthy_env] * 2, observation_mode=("a", "b"))


def test_unknown_observation_mode_is_a_value_error(kind):
    with pytest.raises(ValueError, match=r"Invalid `observation_mode`.*actual got other"):
        build(kind, [healthy_env] * 2, observation_mode="other")


def test_call_calls_methods_and_reads_attributes(make):
    envs = make([partial(PalaestraInfoEnv, render_mode="rgb_array")] * 2)
    envs.reset(seed=0)
    assert envs.call("episode_length") == (7, 7)
    frames = envs.call("render")
    assert len(frames) == 2 and frames[0].shape == (2, 2, 3)
    assert envs.render()[1].shape == (2, 2, 3)


def test_get_attr_and_set_attr_broadcast_and_per_env(make):
    envs = make([PalaestraInfoEnv] * 3)
    envs.set_attr("episode_length", 4)
    assert envs.get_attr("episode_length") == (4, 4, 4)
    envs.set_attr("episode_length", [1, 2, 3])
    assert envs.get_attr("episode_length") == (1, 2, 3)


def test_set_attr_with_wrong_number_of_values_is_a_value_error(make):
    envs = make([PalaestraInfoEnv] * 3)
    with pytest.raises(ValueError) as caught:
        envs.set_attr("episode_length", [1, 2])
    assert str(caught.value) == (
        "Values must be a list or tuple with length equal to the number of environments. "
        "Got `2` values for 3 environments."
    )


def test_close_is_idempotent_and_marks_closed(make):
    envs = make(cartpoles(2))
    envs.close()
    envs.close()
    assert envs.closed


def test_context_manager_closes(kind, no_leaks):
    with build(kind, cartpoles(2)) as envs:
        envs.reset(seed=0)
    assert envs.closed


def test_no_env_functions_is_a_value_error(kind):
    with pytest.raises(ValueError, match="needs at least one env function, got none"):
        build(kind, [])


def test_observation_mode_different_rejects_different_shapes(kind):
    class Wider(palaestra.Wrapper):
        def __init__(self, env):
            super().__init__(env)
            self.observation_space = Box(-1, 1, shape=(3,))

    fns = [healthy_env, lambda: Wider(healthy_env())]
    with pytest.raises(ValueError, match=r"Expected all Box.low shape to be equal"):
        build(kind, fns, observation_mode="different")


def test_observation_mode_pair_rejects_sub_envs_of_another_shape(kind):
    single, batched = Box(-1, 1, shape=(3,)), Box(-1, 1, shape=(2, 3))
    with pytest.raises(
        RuntimeError, match=r"do not share a common shape and dtype[,.] .*Sub-environment 0"
    ):
        build(kind, [healthy_env] * 2, observation_mode=(batched, single))


def test_sync_construction_error_closes_the_sub_envs():
    closed = []

    class Tracked(palaestra.Wrapper):
        def close(self):
            closed.append(True)
            super().close()

    fns = [lambda: Tracked(healthy_env()), lambda: Tracked(palaestra.make("MountainCar-v0"))]
    with pytest.raises(RuntimeError):
        SyncVectorEnv(fns)
    assert closed == [True, True]
