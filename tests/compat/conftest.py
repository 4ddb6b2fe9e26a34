"""Shared helpers for the interop tests: registered ids, making them or skipping visibly."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import palaestra
from palaestra.error import DependencyNotInstalled

pytest.importorskip("gymnasium")


# Atari's 352 ids are one env class over ROMs (tests/envs/atari compares every ROM with
# ale-py's in its slow tests): the default run takes two games in every id form, the slow run
# all of them.
ATARI_SAMPLE_GAMES = ("pong", "breakout")


def _atari_game(env_id: str) -> str | None:
    spec = palaestra.registry[env_id]
    if not str(spec.entry_point).startswith("palaestra.envs.atari"):
        return None
    return (spec.kwargs or {}).get("game")


def registered_ids() -> list[Any]:
    """Every id in palaestra's registry at collection time (new envs join automatically).

    Atari ids beyond :data:`ATARI_SAMPLE_GAMES` are marked slow.
    """
    ids: list[Any] = []
    for env_id in sorted(palaestra.registry):
        game = _atari_game(env_id)
        if game is None or game in ATARI_SAMPLE_GAMES:
            ids.append(env_id)
        else:
            ids.append(pytest.param(env_id, marks=pytest.mark.slow))
    return ids


def make_or_skip(env_id: str, **kwargs: Any) -> palaestra.Env:
    """``palaestra.make(env_id)``, skipping (with the reason) when an optional package is missing.

    Ids of suites that moved elsewhere (mujoco-py v2/v3 to gymnasium-robotics, old Gym to
    shimmy) raise an ``ImportError`` saying so; those skip too. A missing *palaestra* module
    is a bug and fails.
    """
    try:
        return palaestra.make(env_id, **kwargs)
    except DependencyNotInstalled as e:
        pytest.skip(f"{env_id}: optional dependency missing: {e}")
    except ImportError as e:
        if isinstance(e, ModuleNotFoundError) and (e.name or "").startswith("palaestra"):
            raise
        pytest.skip(f"{env_id}: needs a package that is not installed: {str(e)[:120]}")


def assert_same(actual: Any, expected: Any) -> None:
    """Assert two observations/infos are equal, recursing into dicts, tuples and graphs."""
    if isinstance(expected, dict):
        assert sorted(actual) == sorted(expected)
        for key in expected:
            assert_same(actual[key], expected[key])
    elif isinstance(expected, tuple):
        assert len(actual) == len(expected)
        for a, e in zip(actual, expected):
            assert_same(a, e)
    else:
        np.testing.assert_array_equal(np.asarray(actual), np.asarray(expected))


def run_episode_steps(env: Any, actions: list[Any], seed: int) -> list[tuple[Any, ...]]:
    """Reset with ``seed`` and play ``actions``, resetting when an episode ends; return all."""
    records: list[tuple[Any, ...]] = [env.reset(seed=seed)]
    for action in actions:
        observation, reward, terminated, truncated, info = env.step(action)
        records.append((observation, float(reward), terminated, truncated, info))
        if terminated or truncated:
            records.append(env.reset())
    return records


def assert_same_episodes(env: Any, reference: Any, actions: list[Any], seed: int) -> None:
    """Assert ``env`` and ``reference`` give the same records for ``seed`` and ``actions``."""
    for got, expected in zip(
        run_episode_steps(env, actions, seed=seed),
        run_episode_steps(reference, actions, seed=seed),
        strict=True,
    ):
        assert_same(got, expected)


@pytest.fixture
def one_torch_thread():
    """Run the test with one torch thread: small networks on a shared CI machine only contend
    (and more threads change the numerics seeded training results are pinned to)."""
    torch = pytest.importorskip("torch")
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(threads)
