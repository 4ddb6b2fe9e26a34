"""Shared helpers for the interop tests: registered ids, making them or skipping visibly."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import palaestra
from palaestra.error import DependencyNotInstalled

pytest.importorskip("gymnasium")


def registered_ids() -> list[str]:
    """Every id in palaestra's registry at collection time (new envs join automatically)."""
    return sorted(palaestra.registry)


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
