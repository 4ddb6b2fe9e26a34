"""Throughput benchmarks for environments: steps, constructions and renders per second.

Each benchmark repeats its operation until ``target_duration`` seconds have passed (the last
repetition may overrun a little) and returns repetitions per second. Compare two
implementations by the ratio of their results on the same machine.

Example:
    >>> import palaestra as gym
    >>> steps_per_second = benchmark_step(gym.make("CartPole-v1"), target_duration=0.01, seed=0)
    >>> steps_per_second > 0
    True
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import numpy as np

from palaestra.core import Env

__all__ = ["benchmark_step", "benchmark_vector_step", "benchmark_init", "benchmark_render"]


def _rate(operation: Callable[[], int], target_duration: float) -> float:
    """Repeat ``operation`` (which returns how much work it did) for ``target_duration`` seconds.

    The clock is read exactly as Gymnasium's benchmarks read it: one ``time.time()`` before the
    loop and one after each repetition, the rate being work over the last reading minus the
    first. So a patched ``time.time`` gives both libraries the same numbers.

    Returns:
        Units of work per second.
    """
    done = 0
    start = time.time()
    while True:
        done += operation()
        end = time.time()
        if end - start > target_duration:
            return done / (end - start)


def benchmark_step(env: Env, target_duration: float = 5, seed: int | None = None) -> float:
    """Measure how many ``step`` calls per second an environment sustains with random actions.

    Episodes that end are reset (the reset time counts against the steps).

    Args:
        env: the environment.
        target_duration: how long to measure, in seconds.
        seed: seeds the first reset (seed ``env.action_space`` yourself for fixed actions).

    Returns:
        Steps per second.

    Example:
        >>> import palaestra as gym
        >>> benchmark_step(gym.make("CartPole-v1"), target_duration=0.01, seed=0) > 0
        True
    """
    env.reset(seed=seed)
    # As Gymnasium's benchmark: the action space is not seeded, and one action is drawn (and
    # dropped) before the clock starts, so both draw the same actions from a seeded space.
    env.action_space.sample()

    def one_step() -> int:
        _, _, terminated, truncated, _ = env.step(env.action_space.sample())
        if terminated or truncated:
            env.reset()
        return 1

    return _rate(one_step, target_duration)


def benchmark_vector_step(env: Any, target_duration: float = 5, seed: int | None = None) -> float:
    """Measure how many sub-environment steps per second a vector environment sustains.

    The first step (where lazy initialization and JIT compilation happen) is not timed. With
    next-step autoreset, a sub-env's reset step does not count as a step; with autoreset
    disabled, ended sub-envs are reset through ``reset_mask``.

    Args:
        env: the vector environment.
        target_duration: how long to measure, in seconds.
        seed: seeds the resets and the action space.

    Returns:
        Sub-environment steps per second.

    Example:
        >>> import palaestra as gym
        >>> envs = gym.make_vec("CartPole-v1", num_envs=2, vectorization_mode="sync")
        >>> benchmark_vector_step(envs, target_duration=0.01, seed=0) > 0
        True
    """
    from palaestra.vector.episodes import DISABLED, EpisodeMasks

    env.action_space.seed(seed)
    env.reset(seed=seed)
    env.step(env.action_space.sample())
    env.reset(seed=seed)
    masks = EpisodeMasks.of(env)

    def one_step() -> int:
        _, _, terminated, truncated, _ = env.step(env.action_space.sample())
        # A next-step reset step is no step of an episode: it does not count.
        _, valid, ended = masks.step(terminated, truncated)
        if masks.mode is DISABLED and np.any(ended):
            env.reset(options={"reset_mask": ended})
            masks.reset(ended)
        return int(np.count_nonzero(valid))

    return _rate(one_step, target_duration)


def benchmark_init(
    env_lambda: Callable[[], Env], target_duration: float = 5, seed: int | None = None
) -> float:
    """Measure how many environments per second can be built and reset once.

    Args:
        env_lambda: builds a new environment.
        target_duration: how long to measure, in seconds.
        seed: seeds each first reset.

    Returns:
        Constructions (with their first reset) per second.

    Example:
        >>> import palaestra as gym
        >>> benchmark_init(lambda: gym.make("CartPole-v1"), target_duration=0.01) > 0
        True
    """

    def one_init() -> int:
        env_lambda().reset(seed=seed)
        return 1

    return _rate(one_init, target_duration)


def benchmark_render(env: Env, target_duration: float = 5) -> float:
    """Measure how many ``render`` calls per second an environment sustains.

    Not meaningful for ``render_mode="human"``, which waits for the frame rate.

    Args:
        env: an environment with a render mode, already reset.
        target_duration: how long to measure, in seconds.

    Returns:
        Renders per second.

    Example:
        >>> import palaestra as gym
        >>> env = gym.make("CartPole-v1", render_mode="rgb_array")
        >>> _ = env.reset(seed=0)
        >>> benchmark_render(env, target_duration=0.01) > 0
        True
    """

    def one_render() -> int:
        env.render()
        return 1

    return _rate(one_render, target_duration)
