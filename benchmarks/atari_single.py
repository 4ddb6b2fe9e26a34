"""Per-step time of palaestra's single Atari envs beside ale-py's own, in the same run.

Three settings per game, each made by palaestra and by Gymnasium (on ale-py's ``AtariEnv``):

- ``raw``: ``make("ALE/<Game>-v5")`` (210x160 RGB screens, 4 frames per step, sticky actions);
- ``preprocessed``: ``make("ALE/<Game>-v5", frameskip=1)`` in ``AtariPreprocessing`` (84x84
  grayscale, 4 frames per step with max-pooling, no-op starts) and
  ``FrameStackObservation(4)``, each library's own wrappers;
- ``sync8``: a sync vector of 8 preprocessed envs (palaestra's ``SyncVectorEnv`` vs
  Gymnasium's), the baseline a batched Atari env has to beat.

Both sides step the same seeded episodes with the same actions; only steps are timed. Repeats
alternate between the libraries so load changes hit both, and each number is the median. One
JSON line per (game, setting): microseconds per step (per vector step for ``sync8``) and
``ratio`` = palaestra / Gymnasium (below 1 is faster).

Run from the repository root (needs the ``atari`` extra, Gymnasium and OpenCV)::

    python benchmarks/atari_single.py --steps 2000 --repeats 5
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from collections.abc import Callable
from typing import Any

import ale_py
import gymnasium
import numpy as np

import palaestra

gymnasium.register_envs(ale_py)

GAMES = ("Pong", "Breakout")
SETTINGS = ("raw", "preprocessed", "sync8")
VECTOR_ENVS = 8


def preprocessed(library: Any, env_id: str) -> Any:
    """``env_id`` without frame skipping, in the library's AtariPreprocessing and a stack of 4."""
    env = library.wrappers.AtariPreprocessing(library.make(env_id, frameskip=1))
    return library.wrappers.FrameStackObservation(env, 4)


def builder(library: Any, env_id: str, setting: str) -> Callable[[], Any]:
    """A function making ``setting``'s env of ``env_id`` with ``library`` (palaestra or gym)."""
    if setting == "raw":
        return lambda: library.make(env_id)
    if setting == "preprocessed":
        return lambda: preprocessed(library, env_id)
    factories = [lambda: preprocessed(library, env_id)] * VECTOR_ENVS
    return lambda: library.vector.SyncVectorEnv(factories)


def seconds_per_step(env: Any, actions: np.ndarray) -> float:
    """Step ``env`` through ``actions`` after a seeded reset; time only the steps.

    Single envs are reset (untimed) when an episode ends; vector envs reset themselves.
    """
    env.reset(seed=0)
    step = env.step
    vector = actions.ndim == 2
    elapsed = 0.0
    start = time.perf_counter()
    for action in actions:
        outcome = step(action)
        if not vector and (outcome[2] or outcome[3]):
            elapsed += time.perf_counter() - start
            env.reset()
            start = time.perf_counter()
    return (elapsed + time.perf_counter() - start) / len(actions)


def measure(game: str, setting: str, steps: int, repeats: int) -> dict[str, Any]:
    """Median microseconds per step of both libraries for one game and setting."""
    env_id = f"ALE/{game}-v5"
    envs = {
        "palaestra": builder(palaestra, env_id, setting)(),
        "gymnasium": builder(gymnasium, env_id, setting)(),
    }
    count = envs["gymnasium"].action_space
    shape = (steps, VECTOR_ENVS) if setting == "sync8" else (steps,)
    n = count.nvec[0] if setting == "sync8" else count.n
    actions = np.random.default_rng(0).integers(n, size=shape)
    times: dict[str, list[float]] = {name: [] for name in envs}
    for _ in range(repeats):
        for name, env in envs.items():
            times[name].append(seconds_per_step(env, actions))
    for env in envs.values():
        env.close()
    ours, theirs = (statistics.median(times[name]) * 1e6 for name in ("palaestra", "gymnasium"))
    return {
        "kind": "atari_single",
        "env_id": env_id,
        "setting": setting,
        "steps": steps,
        "repeats": repeats,
        "palaestra_us": round(ours, 2),
        "gymnasium_us": round(theirs, 2),
        "ratio": round(ours / theirs, 3),
    }


def main(argv: list[str] | None = None) -> list[dict[str, Any]]:
    """Measure every game and setting asked for; print and return one row each."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=2000)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--games", nargs="+", default=list(GAMES))
    parser.add_argument("--settings", nargs="+", default=list(SETTINGS), choices=SETTINGS)
    args = parser.parse_args(argv)
    rows = []
    for game in args.games:
        for setting in args.settings:
            row = measure(game, setting, args.steps, args.repeats)
            print(json.dumps(row), flush=True)
            rows.append(row)
    return rows


if __name__ == "__main__":
    main()
