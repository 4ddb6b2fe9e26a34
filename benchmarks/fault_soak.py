"""Soak the multi-process vector envs: many create/step/close cycles, and workers killed.

Two runs, each printing one JSON line per case (``--out`` appends them to a file too):

* ``cycles``: ``--cycles`` rounds of ``make_vec`` / ``reset`` / ten steps / ``close`` for each
  mode (async, pool, Ray, and the MuJoCo batch); RSS, open descriptors and processes below
  this one are read after the first tenth of the rounds (warm) and at the end: they must
  stay flat.
* ``kill``: a pool with ``restart_failed=True`` whose worker 1 (sub-envs 2, 3) is killed
  with SIGKILL every ``--kill-every`` seconds for ``--minutes``; every step's rows of the
  other group (never restarted) must equal a sync vector env's of the same envs, and RSS,
  descriptors and processes stay flat.

Run by hand (it takes minutes): ``python benchmarks/fault_soak.py --out
benchmarks/fault_soak_results.jsonl``; ``--ray-cycles`` is lower by default, as one Ray
vector env takes about a second to start its actors.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import sys
import time
import warnings
from collections.abc import Callable
from typing import Any

import numpy as np
import psutil

import palaestra as gym
from palaestra.vector import PoolVectorEnv, SyncVectorEnv


def resources() -> dict[str, float]:
    """RSS (MiB), open descriptors and processes below this one, now."""
    me = psutil.Process()
    return {
        "rss_mib": round(me.memory_info().rss / 2**20, 1),
        "fds": me.num_fds(),
        "processes": len(me.children(recursive=True)),
    }


def cartpoles(mode: str) -> Callable[[], Any]:
    def build() -> Any:
        # numpy: no numba to load in every new worker.
        return gym.make_vec(
            "CartPole-v1",
            4,
            vectorization_mode=mode,
            vector_kwargs={"num_workers": 2},
            accelerator="numpy",
        )

    return build


def async_cartpoles() -> Any:
    return gym.make_vec("CartPole-v1", 4, vectorization_mode="async")


def mujoco_batch() -> Any:
    return gym.make_vec("HalfCheetah-v5", 4, vectorization_mode="vector_entry_point")


def cycle(build: Callable[[], Any]) -> None:
    envs = build()
    envs.reset(seed=0)
    for _ in range(10):
        envs.step(envs.action_space.sample())
    envs.close()


def soak_cycles(name: str, build: Callable[[], Any], cycles: int) -> dict[str, Any]:
    warm = max(1, cycles // 10)
    started = time.perf_counter()
    for _ in range(warm):
        cycle(build)
    before = resources()
    for _ in range(cycles - warm):
        cycle(build)
    after = resources()
    return {
        "case": "cycles",
        "mode": name,
        "cycles": cycles,
        "seconds": round(time.perf_counter() - started, 1),
        "warm": before,
        "end": after,
    }


def soak_kills(minutes: float, kill_every: float) -> dict[str, Any]:
    env_fns = [lambda: gym.make("CartPole-v1")] * 4
    envs = PoolVectorEnv(env_fns, num_workers=2, restart_failed=True, max_restarts=10**6)
    reference = SyncVectorEnv(env_fns)
    rng = np.random.default_rng(0)
    envs.reset(seed=0)
    reference.reset(seed=0)
    steps = kills = restarts = mismatches = 0
    start = time.monotonic()
    next_kill = start + kill_every
    before = resources()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # one restart warning per kill
        while time.monotonic() - start < minutes * 60:
            if time.monotonic() >= next_kill:
                os.kill(envs._processes.processes[1].pid, signal.SIGKILL)
                kills += 1
                next_kill += kill_every
            actions = rng.integers(0, 2, size=4)
            got = envs.step(actions)
            want = reference.step(actions)
            restarts += int(got[4].get("worker_restarted", np.zeros(4, bool))[2])
            for got_field, want_field in zip(got[:4], want[:4]):
                if not np.array_equal(np.asarray(got_field)[:2], np.asarray(want_field)[:2]):
                    mismatches += 1
                    break
            steps += 1
            if steps == 1000:
                before = resources()  # warm: the first restarts' allocations are made
    after = resources()
    envs.close()
    reference.close()
    return {
        "case": "kill",
        "minutes": minutes,
        "kill_every_s": kill_every,
        "steps": steps,
        "kills": kills,
        "restarts": restarts,
        "rows_differing_from_sync": mismatches,
        "warm": before,
        "end": after,
    }


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cycles", type=int, default=1000)
    parser.add_argument("--ray-cycles", type=int, default=100)
    parser.add_argument("--minutes", type=float, default=10.0)
    parser.add_argument("--kill-every", type=float, default=10.0)
    parser.add_argument("--modes", default="async,pool,ray,mujoco_batch")
    parser.add_argument("--out", default=None, help="a JSON-lines file to append to")
    args = parser.parse_args(argv)
    builders = {
        "async": (async_cartpoles, args.cycles),
        "pool": (cartpoles("pool"), args.cycles),
        "ray": (cartpoles("ray"), args.ray_cycles),
        "mujoco_batch": (mujoco_batch, args.cycles),
    }
    results = []
    for name in args.modes.split(","):
        if name == "ray":
            import ray

            ray.init(address="local", num_cpus=4, include_dashboard=False, log_to_driver=False)
        build, cycles = builders[name]
        results.append(soak_cycles(name, build, cycles))
        if name == "ray":
            ray.shutdown()
        print(json.dumps(results[-1]), flush=True)
    if args.minutes > 0:
        results.append(soak_kills(args.minutes, args.kill_every))
        print(json.dumps(results[-1]), flush=True)
    if args.out:
        stamp = {"when": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), "argv": sys.argv[1:]}
        with open(args.out, "a") as out:
            for result in results:
                out.write(json.dumps({**stamp, **result}) + "\n")


if __name__ == "__main__":
    main()
