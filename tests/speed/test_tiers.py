"""Tiered acceleration: an "auto" env starts on numpy and moves to numba with the same results."""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

import pytest

import palaestra as gym
from palaestra.envs.classic_control.vector import CartPoleVectorEnv
from palaestra.vector.native import accelerator, base, tiers
from tests.speed.conftest import assert_same_trajectory, random_actions, record

pytest.importorskip("numba")


@pytest.fixture(autouse=True)
def fresh_process_state(monkeypatch):
    """No env has moved yet (as in a fresh process), and the default accelerator is "auto"."""
    monkeypatch.setattr(tiers, "_promoted", [False])
    monkeypatch.delenv(accelerator.ACCELERATOR_VARIABLE, raising=False)


def moving_at(envs: Any, actions: list[Any], step: int) -> Iterator[Any]:
    """``actions``, with ``envs`` moved to the compiled path just before action ``step``."""
    for index, action in enumerate(actions):
        if index == step:
            assert envs.unwrapped.accelerator == "numpy"
            envs.unwrapped.use_compiled_path()
        yield action


def moving_by_itself_at(envs: Any, actions: list[Any], step: int) -> Iterator[Any]:
    """``actions``, checking that ``envs`` is on numpy before action ``step``, numba after."""
    for index, action in enumerate(actions):
        assert envs.accelerator == ("numpy" if index <= step else "numba")
        yield action


def make_native(env_id: str, num_envs: int, autoreset_mode: str, **kwargs: Any) -> Any:
    return gym.make_vec(env_id, num_envs, autoreset_mode=autoreset_mode, **kwargs)


def test_a_run_moving_to_numba_mid_episode_gives_the_numpy_trajectory(env_id, autoreset_mode):
    actions = random_actions(env_id, 5, 160)
    expected = record(make_native(env_id, 5, autoreset_mode, accelerator="numpy"), actions)
    envs = make_native(env_id, 5, autoreset_mode, accelerator="numpy")
    actual = record(envs, moving_at(envs, actions, 77))
    assert envs.unwrapped.accelerator == "numba"
    assert_same_trajectory(expected, actual)


def test_a_large_batch_moves_its_array_streams_where_they_are(autoreset_mode):
    # Above 32 sub-envs the numpy streams are arrays with draws made ahead: given back.
    actions = random_actions("CartPole-v1", 300, 60)
    expected = record(make_native("CartPole-v1", 300, autoreset_mode, accelerator="numpy"), actions)
    envs = make_native("CartPole-v1", 300, autoreset_mode, accelerator="numpy")
    actual = record(envs, moving_at(envs, actions, 23))
    assert_same_trajectory(expected, actual)


@pytest.mark.parametrize("env_id", ["CartPole-v1", "MountainCar-v0"])
def test_after_a_move_next_step_autoresets_draw_the_numpy_paths_initial_states(env_id):
    # Episodes of 7 steps: after the move the compiled path restarts the rows that ended in
    # one call (compiled_restart_uniform, NEXT_STEP's autoreset), from the streams where the
    # numpy path left them.
    actions = random_actions(env_id, 40, 60)
    short = {"max_episode_steps": 7}
    expected = record(make_native(env_id, 40, "NextStep", accelerator="numpy", **short), actions)
    envs = make_native(env_id, 40, "NextStep", accelerator="numpy", **short)
    actual = record(envs, moving_at(envs, actions, 11))
    assert envs.unwrapped._compiled_restart is not None
    assert_same_trajectory(expected, actual)


def test_a_batch_seeded_as_gymnasiums_restarts_with_its_own_draws_after_a_move():
    # seeding="batch" draws from one generator: the per-row compiled restart does not apply.
    actions = random_actions("CartPole-v1", 6, 80)
    batch = {"seeding": "batch", "max_episode_steps": 9}
    expected = record(
        make_native("CartPole-v1", 6, "NextStep", accelerator="numpy", **batch), actions
    )
    envs = make_native("CartPole-v1", 6, "NextStep", accelerator="numpy", **batch)
    actual = record(envs, moving_at(envs, actions, 5))
    assert envs.unwrapped._compiled_restart is None
    assert_same_trajectory(expected, actual)


def test_auto_moves_by_itself_once_it_has_taken_compile_after_steps(monkeypatch):
    monkeypatch.setattr(CartPoleVectorEnv, "compile_after_seconds", 0.0)
    monkeypatch.setattr(CartPoleVectorEnv, "compile_after_steps", 48)
    actions = random_actions("CartPole-v1", 4, 80)
    envs = CartPoleVectorEnv(4)
    assert envs.accelerator == "numpy"
    actual = record(envs, moving_by_itself_at(envs, actions, 48))
    assert envs.accelerator == "numba"
    assert_same_trajectory(record(CartPoleVectorEnv(4, accelerator="numpy"), actions), actual)


def test_auto_stays_on_numpy_until_the_run_has_lasted_compile_after_seconds(monkeypatch):
    monkeypatch.setattr(CartPoleVectorEnv, "compile_after_seconds", 3600.0)
    monkeypatch.setattr(CartPoleVectorEnv, "compile_after_steps", 0)
    envs = CartPoleVectorEnv(4)
    record(envs, random_actions("CartPole-v1", 4, 100))
    assert envs.accelerator == "numpy"


def test_only_the_envs_own_step_time_counts_not_the_time_between_steps(monkeypatch):
    # A training loop spends most of its time between steps: that does not make numba pay.
    monkeypatch.setattr(CartPoleVectorEnv, "compile_after_seconds", 1.0)
    monkeypatch.setattr(CartPoleVectorEnv, "compile_after_steps", 0)
    envs = CartPoleVectorEnv(2)
    envs.reset(seed=0)
    for _ in range(25):
        time.sleep(0.05)
        envs.step(envs.action_space.sample())
    assert envs.accelerator == "numpy"


def test_the_default_waits_longer_than_a_short_script():
    # A 2,000-step script (the start-up benchmark's) never pays for numba, on any machine.
    assert CartPoleVectorEnv.compile_after_steps > 2_000


def test_once_an_env_has_moved_later_auto_envs_move_at_their_first_step(monkeypatch):
    monkeypatch.setattr(CartPoleVectorEnv, "compile_after_seconds", 3600.0)
    monkeypatch.setattr(CartPoleVectorEnv, "compile_after_steps", 10**9)
    CartPoleVectorEnv(2, accelerator="numpy").use_compiled_path()
    envs = CartPoleVectorEnv(2)
    envs.reset(seed=0)
    envs.step(envs.action_space.sample())
    assert envs.accelerator == "numba"


def test_explicit_numpy_never_moves(monkeypatch):
    monkeypatch.setattr(CartPoleVectorEnv, "compile_after_seconds", 0.0)
    monkeypatch.setattr(CartPoleVectorEnv, "compile_after_steps", 0)
    envs = CartPoleVectorEnv(4, accelerator="numpy")
    record(envs, random_actions("CartPole-v1", 4, 40))
    assert envs.accelerator == "numpy"


def test_explicit_numba_is_compiled_from_the_start():
    assert CartPoleVectorEnv(4, accelerator="numba").accelerator == "numba"


def test_auto_without_numba_never_tries_to_move(monkeypatch):
    monkeypatch.setattr(CartPoleVectorEnv, "compile_after_seconds", 0.0)
    monkeypatch.setattr(base, "numba_installed", lambda: False)
    monkeypatch.setattr(CartPoleVectorEnv, "compile_after_steps", 0)
    envs = CartPoleVectorEnv(4)
    record(envs, random_actions("CartPole-v1", 4, 40))
    assert envs.accelerator == "numpy"


def test_a_failed_move_warns_and_keeps_the_numpy_results(monkeypatch):
    def broken(self: Any) -> Any:
        raise ImportError("numba is broken here")

    monkeypatch.setattr(CartPoleVectorEnv, "compile_after_seconds", 0.0)
    monkeypatch.setattr(CartPoleVectorEnv, "compile_advance", broken)
    monkeypatch.setattr(CartPoleVectorEnv, "compile_after_steps", 0)
    actions = random_actions("CartPole-v1", 4, 40)
    envs = CartPoleVectorEnv(4)
    with pytest.warns(UserWarning, match="stays on numpy.*numba is broken here"):
        actual = record(envs, actions)
    assert envs.accelerator == "numpy"
    assert_same_trajectory(record(CartPoleVectorEnv(4, accelerator="numpy"), actions), actual)


def test_moving_an_env_without_compiled_dynamics_says_so():
    envs = gym.make_vec("FrozenLake-v1", 2, vectorization_mode="vector_entry_point")
    with pytest.raises(NotImplementedError, match="no compiled dynamics"):
        envs.unwrapped.use_compiled_path()
