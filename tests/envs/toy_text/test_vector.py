"""The natively batched toy-text envs equal make_vec(..., "sync") in every autoreset mode."""

from __future__ import annotations

import numpy as np
import pytest

import palaestra
from palaestra.envs.registration import load_env_creator
from palaestra.envs.toy_text._streams import BufferedIntegerStreams, TableStreams
from palaestra.envs.toy_text.vector import (
    BlackjackVectorEnv,
    CliffWalkingVectorEnv,
    FrozenLakeVectorEnv,
    TaxiVectorEnv,
)
from palaestra.vector import AutoresetMode
from tests.envs.toy_text.conftest import VARIANT_IDS, VARIANTS, assert_same_value


def make_pair(env_id, num_envs, mode, kwargs, use_arrays):
    sync = palaestra.make_vec(
        env_id,
        num_envs,
        vectorization_mode="sync",
        vector_kwargs={"autoreset_mode": mode},
        **kwargs,
    )
    spec = palaestra.spec(env_id)
    native = load_env_creator(spec.vector_entry_point)(
        num_envs=num_envs,
        max_episode_steps=spec.max_episode_steps,
        autoreset_mode=mode,
        **{**spec.kwargs, **kwargs},
    )
    # Both paths (row by row on Generators, whole columns on array streams) at a small size.
    native.use_streams(TableStreams(num_envs, use_arrays=use_arrays))
    return sync, native


def assert_same_run(sync, native, seed, steps, mode):
    assert_same_value(native.reset(seed=seed), sync.reset(seed=seed), "reset")
    rng = np.random.default_rng(seed)
    for step in range(steps):
        actions = rng.integers(0, sync.single_action_space.n, sync.num_envs)
        expected = sync.step(actions)
        assert_same_value(native.step(actions), expected, f"step {step}")
        ended = expected[2] | expected[3]
        if mode is AutoresetMode.DISABLED and ended.any():
            assert_same_value(
                native.reset(options={"reset_mask": ended}),
                sync.reset(options={"reset_mask": ended}),
                "reset_mask",
            )


@pytest.mark.parametrize("use_arrays", [False, True], ids=["generators", "arrays"])
@pytest.mark.parametrize("mode", list(AutoresetMode), ids=lambda mode: mode.value)
@pytest.mark.parametrize(("env_id", "kwargs"), VARIANTS, ids=VARIANT_IDS)
def test_native_equals_sync(env_id, kwargs, mode, use_arrays):
    sync, native = make_pair(env_id, 5, mode, kwargs, use_arrays)
    assert_same_run(sync, native, seed=3, steps=120, mode=mode)


@pytest.mark.parametrize(
    ("env_id", "cls"),
    [
        ("FrozenLake-v1", FrozenLakeVectorEnv),
        ("FrozenLake8x8-v1", FrozenLakeVectorEnv),
        ("CliffWalking-v1", CliffWalkingVectorEnv),
        ("CliffWalkingSlippery-v1", CliffWalkingVectorEnv),
        ("Taxi-v4", TaxiVectorEnv),
        ("Blackjack-v1", BlackjackVectorEnv),
    ],
)
def test_make_vec_defaults_to_the_native_env_with_the_spec_time_limit(env_id, cls):
    envs = palaestra.make_vec(env_id, num_envs=3)
    assert type(envs) is cls
    assert envs.max_episode_steps == palaestra.spec(env_id).max_episode_steps
    assert envs.single_observation_space == palaestra.make(env_id).observation_space


def test_large_batch_equals_sync_with_array_streams():
    sync = palaestra.make_vec("FrozenLake-v1", 300, vectorization_mode="sync")
    native = palaestra.make_vec("FrozenLake-v1", 300)
    assert native.generators.use_arrays
    assert_same_run(sync, native, seed=9, steps=40, mode=AutoresetMode.NEXT_STEP)


@pytest.mark.parametrize("mode", list(AutoresetMode), ids=lambda mode: mode.value)
def test_blackjack_with_cards_made_ahead_equals_sync(mode):
    sync, native = make_pair("Blackjack-v1", 6, mode, {}, use_arrays=True)
    native.use_streams(BufferedIntegerStreams(6, ahead=3))
    assert_same_run(sync, native, seed=11, steps=150, mode=mode)


def test_large_blackjack_batch_makes_cards_ahead_and_equals_sync():
    sync = palaestra.make_vec("Blackjack-v1", 100, vectorization_mode="sync")
    native = palaestra.make_vec("Blackjack-v1", 100)
    assert isinstance(native.generators, BufferedIntegerStreams)
    assert_same_run(sync, native, seed=2, steps=30, mode=AutoresetMode.NEXT_STEP)


def test_cards_made_ahead_snapshot_continues_as_the_generator():
    streams = BufferedIntegerStreams(2, ahead=2)
    streams.seed(np.arange(2), [7, 8])
    single = np.random.default_rng(8)
    for n in (13, 4, 13):
        assert int(streams.bounded(np.arange(2), n)[1]) == int(single.integers(0, n))
    assert (
        streams.generators[1].integers(0, 13, size=6).tolist()
        == single.integers(0, 13, size=6).tolist()
    )


def test_np_random_snapshots_continue_as_the_sub_envs_generators():
    native = TaxiVectorEnv(num_envs=2, fickle_passenger=True)
    native.use_streams(TableStreams(2, use_arrays=True))
    native.reset(seed=5)
    native.generators.bounded(np.array([0]), 3)  # leaves half a 64-bit draw buffered
    snapshot = native.np_random[0]
    assert float(native.generators.doubles(np.array([0]))[0]) == snapshot.random()
    assert int(native.generators.bounded(np.array([0]), 13)[0]) == int(snapshot.integers(0, 13))
    assert native.np_random_seed == (5, 6)


def test_rgb_array_render_returns_the_single_envs_frame_per_sub_env():
    native = palaestra.make_vec("CliffWalking-v1", num_envs=2, render_mode="rgb_array")
    native.reset(seed=0)
    native.step(np.array([0, 1]))
    frames = native.render()
    single = palaestra.make("CliffWalking-v1", render_mode="rgb_array").unwrapped
    single.reset(seed=0)
    single.s = 24
    assert len(frames) == 2 and np.array_equal(frames[0], single.render())


def test_blackjack_batch_renders_each_table():
    native = palaestra.make_vec("Blackjack-v1", num_envs=2, render_mode="rgb_array")
    native.reset(seed=1)
    frames = native.render()
    assert [frame.shape for frame in frames] == [(376, 384, 3), (376, 384, 3)]


def test_out_of_range_actions_are_rejected_naming_the_valid_range():
    native = palaestra.make_vec("Taxi-v4", num_envs=2)
    native.reset(seed=0)
    # KeyError, as the single env's table lookup raises it (and so a sync vector env).
    with pytest.raises(KeyError, match=r"\[0, 5\]"):
        native.step(np.array([0, 6]))


def test_disabled_autoreset_refuses_to_step_an_ended_sub_env():
    native = CliffWalkingVectorEnv(num_envs=1, autoreset_mode="Disabled")
    native.reset(seed=0)
    native.state[0] = 35
    assert native.step(np.array([2]))[2].tolist() == [True]
    with pytest.raises(RuntimeError, match="reset_mask"):
        native.step(np.array([0]))


# Down, right: both lakes walk into the hole at 5, so the next step autoresets every sub-env
# and steps none (NEXT_STEP); sticking ends every Blackjack hand at once.
EVERY_ROW_ENDS = [
    ("FrozenLake-v1", {"is_slippery": False}, [[1, 1], [2, 2], [0, 0], [1, 1], [2, 2]]),
    ("Blackjack-v1", {}, [[0, 0]] * 5),
]


@pytest.mark.parametrize("use_arrays", [False, True], ids=["generators", "arrays"])
@pytest.mark.parametrize("mode", list(AutoresetMode), ids=lambda mode: mode.value)
@pytest.mark.parametrize(
    ("env_id", "kwargs", "actions"), EVERY_ROW_ENDS, ids=["lake-holes", "blackjack-sticks"]
)
def test_a_step_that_autoresets_every_sub_env_equals_sync(
    env_id, kwargs, actions, mode, use_arrays
):
    sync, native = make_pair(env_id, 2, mode, kwargs, use_arrays)
    assert_same_value(native.reset(seed=0), sync.reset(seed=0), "reset")
    for step, action in enumerate(np.array(actions)):
        expected = sync.step(action)
        assert_same_value(native.step(action), expected, f"step {step}")
        ended = expected[2] | expected[3]
        if mode is AutoresetMode.DISABLED and ended.any():
            assert_same_value(
                native.reset(options={"reset_mask": ended}),
                sync.reset(options={"reset_mask": ended}),
                "reset_mask",
            )


@pytest.mark.parametrize("use_arrays", [False, True], ids=["generators", "arrays"])
def test_same_step_final_info_holds_the_action_mask_of_the_ended_state(use_arrays):
    # The rows reset inside the step must not lend their new states to the final infos.
    sync, native = make_pair("Taxi-v4", 16, AutoresetMode.SAME_STEP, {}, use_arrays)
    native.reset(seed=4), sync.reset(seed=4)
    rng = np.random.default_rng(4)
    finals = 0
    for step in range(300):
        actions = rng.integers(0, 6, 16)
        expected, observed = sync.step(actions), native.step(actions)
        assert_same_value(observed, expected, f"step {step}")
        finals += int(expected[2].sum())
    assert finals > 0
