"""The "ray" vectorization mode: CPU-bound throughput vs sync, per-step overhead vs the pool.

Three measurements, each side by side in one run (one local Ray with 2 CPUs):

1. ``BusyEnv-v0`` burning 2 ms of CPU per step (``benchmarks/busy_env.py``) in 2 Ray actors,
   against ``"sync"``: at N=2 (one sub-env per actor, the harsh case: a 2 ms step must pay
   for a whole round trip) and at N=8 (4 per actor, the vector size of the other judged
   benchmarks). Each in the ray mode's default transport (direct channels to actors on the
   driver's node) and with ``transport="ray"`` (Ray actor calls). The judged bar: 1.6x sync.
2. ``CartPole-v1`` (microseconds of work per step), 2 sub-envs in 2 workers: the wall time of
   one lockstep ``step`` in the ray mode (both transports) against the process pool.
3. The floor of a round trip to an actor that does nothing: a plain Ray actor call, a Ray
   Compiled Graph execution (with the share of a core the driver burns meanwhile) and the
   ray mode's direct channel.

Usage:
    python benchmarks/ray_mode.py [--steps 300] [--repeats 3]

Output: JSON lines, one per measurement (``"kind": "run"``), a ``"kind": "ratio"`` line for
each comparison (medians over the repeats) and ``"kind": "floor"`` lines.
"""

from __future__ import annotations

import argparse
import json
import os
import secrets
import statistics
import sys
import time
from collections.abc import Callable
from typing import Any

import numpy as np
import ray

import palaestra
from palaestra.vector.processes import process_alive
from palaestra.vector.ray._channel import connect, receive, send, serve

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)  # for "benchmarks.busy_env" when run as a script
BUSY_ID = "benchmarks.busy_env:BusyEnv-v0"
# Modes measured against sync (and the pool): name -> (vectorization mode, vector_kwargs).
RAY_MODES = {
    "ray": ("ray", {"num_workers": 2}),
    "ray-transport-ray": ("ray", {"num_workers": 2, "transport": "ray"}),
}


def emit(record: dict[str, Any]) -> None:
    """Print one JSON line."""
    print(json.dumps(record), flush=True)


def steps_per_second(envs: Any, steps: int) -> float:
    """Reset, warm up, then time ``steps`` lockstep steps; return steps per second."""
    envs.reset(seed=0)
    actions = envs.action_space.sample()
    for _ in range(5):
        envs.step(actions)
    start = time.perf_counter()
    for _ in range(steps):
        envs.step(actions)
    return steps / (time.perf_counter() - start)


def make(env_id: str, num_envs: int, name: str, **env_kwargs: Any) -> Any:
    """``make_vec`` of ``env_id`` in the mode called ``name`` (sync, pool or a ray mode)."""
    mode, vector_kwargs = RAY_MODES.get(name, (name, {"num_workers": 2} if name == "pool" else {}))
    return palaestra.make_vec(
        env_id, num_envs, vectorization_mode=mode, vector_kwargs=vector_kwargs, **env_kwargs
    )


def measure(env_id: str, num_envs: int, name: str, steps: int, **env_kwargs: Any) -> float:
    """Steps/s of ``num_envs`` copies of ``env_id`` in mode ``name``."""
    envs = make(env_id, num_envs, name, **env_kwargs)
    pids = [pid for _, pid in getattr(envs, "placements", [])]
    try:
        return steps_per_second(envs, steps)
    finally:
        envs.close()
        settle(pids)


def settle(pids: list[int], seconds: float = 2.0) -> None:
    """Wait until the processes ``pids`` (closed actors) ended, then ``seconds`` more.

    ``close`` kills the actors asynchronously and Ray then starts idle workers; a
    measurement started meanwhile would share the cores with them.
    """
    if not pids:
        return
    deadline = time.monotonic() + 30
    while pids and time.monotonic() < deadline:
        pids = [pid for pid in pids if process_alive(pid)]
        time.sleep(0.1)
    time.sleep(seconds)


def busy(num_envs: int, steps: int, repeats: int) -> None:
    """BusyEnv (2 ms per step) steps/s in each ray mode and sync, interleaved; print ratios."""
    results: dict[str, list[float]] = {"sync": [], **{name: [] for name in RAY_MODES}}
    for _ in range(repeats):
        for name in results:
            value = measure(BUSY_ID, num_envs, name, steps, step_seconds=0.002)
            results[name].append(value)
            emit(
                {
                    "kind": "run",
                    "env_id": "BusyEnv-v0",
                    "step_ms": 2.0,
                    "num_envs": num_envs,
                    "num_workers": 2,
                    "mode": name,
                    "steps_per_s": round(value, 1),
                }
            )
    sync = statistics.median(results["sync"])
    for name in RAY_MODES:
        ratio = statistics.median(results[name]) / sync
        emit(
            {
                "kind": "ratio",
                "what": f"BusyEnv-v0 2 ms/step, N={num_envs}, 2 workers: {name} steps/s over sync",
                "ratio": round(ratio, 3),
                "meets_1.6x": ratio >= 1.6,
                "cpu_count": os.cpu_count(),
                "load_average_1min": round(os.getloadavg()[0], 2),
            }
        )


def overhead(steps: int, repeats: int) -> None:
    """Microseconds per lockstep step of 2 CartPoles in 2 workers; ray modes over the pool."""
    costs: dict[str, list[float]] = {"pool": [], **{name: [] for name in RAY_MODES}}
    for _ in range(repeats):
        for name in costs:
            value = 1e6 / measure("CartPole-v1", 2, name, steps)
            costs[name].append(value)
            emit(
                {
                    "kind": "run",
                    "env_id": "CartPole-v1",
                    "num_envs": 2,
                    "num_workers": 2,
                    "mode": name,
                    "us_per_step": round(value, 1),
                }
            )
    pool = statistics.median(costs["pool"])
    for name in RAY_MODES:
        mine = statistics.median(costs[name])
        emit(
            {
                "kind": "ratio",
                "what": f"CartPole-v1, 2 workers: {name} us/step over pool us/step",
                "ratio": round(mine / pool, 2),
                f"{name}_us_per_step": round(mine, 1),
                "pool_us_per_step": round(pool, 1),
                "load_average_1min": round(os.getloadavg()[0], 2),
            }
        )


@ray.remote(num_cpus=0)
class Echo:
    """An actor that answers at once: the floor of a round trip."""

    def echo(self, value: Any) -> Any:
        """Return ``value``."""
        return value

    def open_channel(self, token: bytes) -> str:
        """Serve ``echo`` over the ray mode's direct channel."""
        return serve(token, lambda command, data: data)


def _round_trip_us(call: Callable[[], Any], count: int) -> tuple[float, float]:
    """Microseconds per ``call()`` and the share of a core this process used meanwhile."""
    for _ in range(50):
        call()
    cpu, start = time.process_time(), time.perf_counter()
    for _ in range(count):
        call()
    wall = time.perf_counter() - start
    return wall / count * 1e6, (time.process_time() - cpu) / wall


def floor(count: int = 2000) -> None:
    """Round trips to an idle actor: plain Ray call, Compiled Graph, direct channel."""
    from ray.dag import InputNode

    actor = Echo.remote()
    action = np.zeros(1, dtype=np.int64)
    ray.get(actor.echo.remote(action))
    results = {"ray_actor_call": _round_trip_us(lambda: ray.get(actor.echo.remote(action)), count)}
    with InputNode() as given:
        dag = actor.echo.bind(given)
    compiled = dag.experimental_compile()
    try:
        results["ray_compiled_graph"] = _round_trip_us(
            lambda: ray.get(compiled.execute(action)), count
        )
    finally:
        compiled.teardown()
    token = secrets.token_bytes(16)
    connection = connect(ray.get(actor.open_channel.remote(token)), token, 10.0)

    def channel_call() -> Any:
        send(connection, ("echo", action))
        return receive(connection)

    results["direct_channel"] = _round_trip_us(channel_call, count)
    connection.close()
    ray.kill(actor)
    for name, (microseconds, driver_cpu) in results.items():
        emit(
            {
                "kind": "floor",
                "what": f"round trip to an idle actor: {name}",
                "us": round(microseconds, 1),
                "driver_cpu_share": round(driver_cpu, 2),
                "load_average_1min": round(os.getloadavg()[0], 2),
            }
        )


def main() -> None:
    """Run the measurements and print the JSON lines."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=300)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument(
        "--only", choices=["busy2", "busy8", "overhead", "floor"], action="append", default=None
    )
    args = parser.parse_args()
    parts = args.only or ["busy2", "busy8", "overhead", "floor"]
    ray.init(
        address="local",
        num_cpus=2,
        include_dashboard=False,
        log_to_driver=False,
        logging_level="warning",
        runtime_env={"env_vars": {"PYTHONPATH": ROOT}},
    )
    try:
        if "busy2" in parts:
            busy(2, args.steps, args.repeats)
        if "busy8" in parts:
            busy(8, max(1, args.steps // 2), args.repeats)
        if "overhead" in parts:
            overhead(args.steps, args.repeats)
        if "floor" in parts:
            floor()
    finally:
        ray.shutdown()


if __name__ == "__main__":
    main()
