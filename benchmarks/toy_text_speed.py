"""Toy-text speed: the natively batched ``make_vec(id, n)`` against Gymnasium's default.

For every toy-text id and every ``n`` in 1, 2, 4, ..., 1024, times one batch step of
palaestra's default ``make_vec(id, n)`` (the native ``ToyTextVectorEnv``) and of Gymnasium's
default ``gymnasium.make_vec(id, n)`` (a ``SyncVectorEnv``: Gymnasium has no batched toy text),
repeats interleaved round-robin over both modes and all sizes of an id, so that machine load
drifts hit them all alike (each timing after a few untimed steps of the same env, so that
none pays for the caches the previous one left cold). Prints one JSON line per measurement
and per id:

* ``{"kind": "step", "env_id", "num_envs", "mode", "us_per_step", "steps_per_s",
  "ratio_to_gym"}``: the median over repeats of the microseconds per batch step;
  ``ratio_to_gym`` is Gymnasium's time over ours (above 1 is faster);
* ``{"kind": "monotonic", "env_id", "holds", "smallest_growth", "at"}``: whether our batch
  step never gets cheaper as ``n`` doubles (``smallest_growth`` is the smallest
  ``t(n) / t(n / 2)``, at ``n = at``; ``holds`` allows 10% of timing noise);
* one ``{"conditions": ...}`` line first (cores, load), as the other benchmarks print.

Usage (from the repository root)::

    python benchmarks/toy_text_speed.py [--ids Blackjack-v1,Taxi-v4] [--max-envs 1024]
        [--repeats 7] [--output benchmarks/toy_text_results.jsonl]
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import statistics
import sys
import time
from typing import Any

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

IDS = ["FrozenLake-v1", "FrozenLake8x8-v1", "CliffWalking-v1", "Taxi-v4", "Blackjack-v1"]
# A timing noise allowance for "never cheaper as n doubles" on a shared machine.
NOISE = 0.9


def _time_steps(env: Any, actions: np.ndarray) -> float:
    """Seconds per step over ``actions`` (one batch of actions per row)."""
    step = env.step
    start = time.perf_counter()
    for action in actions:
        step(action)
    return (time.perf_counter() - start) / len(actions)


def measure(env_id: str, sizes: list[int], repeats: int) -> dict[tuple[str, int], float]:
    """Median seconds per batch step of ours and Gymnasium's at every size, interleaved.

    Every repeat times each (mode, size) once in turn, so that load drifts of the shared
    machine hit all sizes of both alike: the ratios and the comparisons across sizes are
    taken side by side.
    """
    import gymnasium

    import palaestra

    makers = {"palaestra": palaestra.make_vec, "gymnasium": gymnasium.make_vec}
    rng = np.random.default_rng(0)
    runs = {}
    for num_envs in sizes:
        for mode, make in makers.items():
            env = make(env_id, num_envs)
            # Enough steps that one repeat lasts some milliseconds (Gymnasium's cost ~n).
            count = 400 if mode == "palaestra" else max(20, 4000 // num_envs)
            actions = rng.integers(0, env.single_action_space.n, (count, num_envs))
            env.reset(seed=0)
            _time_steps(env, actions[:10])
            runs[mode, num_envs] = (env, actions)
    times: dict[tuple[str, int], list[float]] = {key: [] for key in runs}
    for _ in range(repeats):
        for key, (env, actions) in runs.items():
            # Untimed steps first: the previous run (a large batch, say) left the caches cold.
            _time_steps(env, actions[:10])
            times[key].append(_time_steps(env, actions))
    for env, _ in runs.values():
        env.close()
    return {key: statistics.median(values) for key, values in times.items()}


def monotonic_line(env_id: str, ours: dict[int, float]) -> dict[str, Any]:
    """Whether the batch step never gets cheaper as ``n`` doubles (within :data:`NOISE`)."""
    sizes = sorted(ours)
    growths = {n: ours[n] / ours[half] for half, n in itertools.pairwise(sizes)}
    at = min(growths, key=growths.get)
    return {
        "kind": "monotonic",
        "env_id": env_id,
        "holds": growths[at] >= NOISE,
        "smallest_growth": round(growths[at], 3),
        "at": at,
    }


def main(argv: list[str] | None = None) -> None:
    """Measure and print (and, with ``--output``, write) the JSON lines."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ids", default=",".join(IDS))
    parser.add_argument("--max-envs", type=int, default=1024)
    parser.add_argument("--repeats", type=int, default=7)
    parser.add_argument("--output", default=None)
    args = parser.parse_args(argv)
    sizes = [
        1 << power for power in range(args.max_envs.bit_length()) if 1 << power <= args.max_envs
    ]
    lines: list[dict[str, Any]] = [
        {
            "conditions": {
                "cpu_count": os.cpu_count(),
                "load_average_1min": round(os.getloadavg()[0], 2),
            }
        }
    ]
    print(json.dumps(lines[0]), flush=True)
    for env_id in args.ids.split(","):
        seconds = measure(env_id, sizes, args.repeats)
        for num_envs in sizes:
            reference = seconds["gymnasium", num_envs]
            for mode in ("palaestra", "gymnasium"):
                value = seconds[mode, num_envs]
                line = {
                    "kind": "step",
                    "env_id": env_id,
                    "num_envs": num_envs,
                    "mode": mode,
                    "us_per_step": round(value * 1e6, 2),
                    "steps_per_s": round(num_envs / value),
                    "ratio_to_gym": round(reference / value, 2),
                }
                lines.append(line)
                print(json.dumps(line), flush=True)
        ours = {num_envs: seconds["palaestra", num_envs] for num_envs in sizes}
        lines.append(monotonic_line(env_id, ours))
        print(json.dumps(lines[-1]), flush=True)
    if args.output:
        temporary = f"{args.output}.tmp"
        with open(temporary, "w") as file:
            file.writelines(json.dumps(line) + "\n" for line in lines)
        os.replace(temporary, args.output)


if __name__ == "__main__":
    main()
