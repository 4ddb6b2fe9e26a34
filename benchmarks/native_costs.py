"""What each bit-exactness technique of the native batched envs costs, measured side by side.

Prints one JSON line per measurement: the exact technique's time, the plain alternative's
time (which would break parity with Gymnasium's single env) and their ratio, each the median
of interleaved repeats in this process. ``docs/native_batching.md`` quotes these numbers.

    python benchmarks/native_costs.py            # everything, including numba's compile cost
    python benchmarks/native_costs.py --no-numba # the numpy techniques only
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

from palaestra.vector.native.exact_squares import scalar_pow_square
from palaestra.vector.native.generators import GeneratorBatch

ROOT = Path(__file__).resolve().parent.parent


def per_call(function: Callable[[], object], calls: int) -> float:
    """Microseconds per call of ``function`` over ``calls`` calls."""
    started = time.perf_counter()
    for _ in range(calls):
        function()
    return (time.perf_counter() - started) / calls * 1e6


def compare(name: str, exact: Callable, plain: Callable, calls: int, repeats: int = 7) -> dict:
    """Time ``exact`` and ``plain`` in turn; print and return the medians and their ratio."""
    exact_times, plain_times = [], []
    for _ in range(repeats):
        exact_times.append(per_call(exact, calls))
        plain_times.append(per_call(plain, calls))
    line = {
        "technique": name,
        "exact_us": round(statistics.median(exact_times), 2),
        "plain_us": round(statistics.median(plain_times), 2),
    }
    line["ratio"] = round(line["exact_us"] / line["plain_us"], 2)
    print(json.dumps(line), flush=True)
    return line


def streams(num_envs: int, resets: int) -> None:
    """Drawing initial states for ``resets`` sub-envs: per-sub-env streams vs one Generator."""
    for compiled in (False, True) if _has_numba() else (False,):
        batch = GeneratorBatch(num_envs, compiled=compiled)
        batch.seed(np.arange(num_envs), list(range(num_envs)))
        shared = np.random.default_rng(0)
        rng = np.random.default_rng(1)

        def exact(batch: GeneratorBatch = batch, rng: np.random.Generator = rng) -> None:
            rows = np.sort(rng.choice(num_envs, resets, replace=False))
            batch.rows(rows).uniform(-0.05, 0.05, size=(resets, 4))

        def plain(shared: np.random.Generator = shared, rng: np.random.Generator = rng) -> None:
            np.sort(rng.choice(num_envs, resets, replace=False))
            shared.uniform(-0.05, 0.05, size=(resets, 4))

        kind = "numba" if compiled else "numpy"
        compare(
            f"per-sub-env PCG64 streams ({kind}), {resets} resets of N={num_envs}",
            exact,
            plain,
            300,
        )


def squares(size: int) -> None:
    """``x ** 2`` rounded as numpy scalars' pow vs the plain product."""
    values = np.random.default_rng(0).normal(size=size)
    compare(
        f"exact squares, numpy, {size} values",
        lambda: scalar_pow_square(values),
        lambda: values * values,
        500,
    )


def compiled_squares(size: int) -> None:
    """The compiled exact ``** 2`` vs numba's product, in a loop over ``size`` values."""
    import numba

    from palaestra.vector.native.compiled import njit

    def loop(values: np.ndarray) -> np.ndarray:
        out = np.empty_like(values)
        for i in range(values.size):
            out[i] = values[i] ** 2
        return out

    values = np.random.default_rng(0).normal(size=size)
    exact, plain = njit(loop), numba.njit(loop)
    exact(values), plain(values)
    compare(
        f"exact squares, numba, {size} values", lambda: exact(values), lambda: plain(values), 500
    )


def row_by_row(num_envs: int) -> None:
    """Acrobot on numpy: the single env's scalar path per row vs the batched path."""
    from palaestra.envs.classic_control.vector import AcrobotVectorEnv

    envs = []
    for limit in (num_envs, 0):
        AcrobotVectorEnv.row_by_row_max_envs = limit
        env = AcrobotVectorEnv(num_envs, accelerator="numpy")
        env.reset(seed=0)
        envs.append(env)
    AcrobotVectorEnv.row_by_row_max_envs = 16
    actions = np.ones(num_envs, dtype=np.int64)
    rows_env, batch_env = envs
    compare(
        f"Acrobot step, row by row vs batched (numpy), N={num_envs}",
        lambda: rows_env.step(actions),
        lambda: batch_env.step(actions),
        200,
    )


def float32_split(num_envs: int) -> None:
    """MountainCarContinuous: a batch with fresh (float64) rows among float32 ones vs none."""
    from palaestra.envs.classic_control.vector import Continuous_MountainCarVectorEnv

    envs = Continuous_MountainCarVectorEnv(num_envs, accelerator="numpy")
    envs.reset(seed=0)
    states = envs.state.copy()
    actions = np.zeros((num_envs, 1), dtype=np.float32)
    mixed = np.zeros(num_envs, dtype=np.bool_)
    mixed[::8] = True
    uniform = np.zeros(num_envs, dtype=np.bool_)
    rows = envs.generators.rows()
    compare(
        f"MountainCarContinuous step with 1/8 fresh float64 rows vs none, N={num_envs}",
        lambda: envs.advance(states, actions, rows, mixed),
        lambda: envs.advance(states, actions, rows, uniform),
        300,
    )


def compile_cost(env_ids: list[str]) -> None:
    """First-call cost of the numba path in a fresh process: empty disk cache, then cached."""
    program = (
        "import sys, time\n"
        "started = time.perf_counter()\n"
        "import palaestra as gym\n"
        "imported = time.perf_counter()\n"
        "for env_id in sys.argv[1:]:\n"
        "    envs = gym.make_vec(env_id, 8, accelerator='numba')\n"
        "    envs.reset(seed=0)\n"
        "    envs.step(envs.action_space.sample())\n"
        "print(time.perf_counter() - imported)\n"
    )
    with tempfile.TemporaryDirectory() as cache:
        env = {**os.environ, "NUMBA_CACHE_DIR": cache, "PYTHONPATH": str(ROOT)}
        for label in ("empty cache", "cached"):
            seconds = subprocess.run(
                [sys.executable, "-c", program, *env_ids],
                capture_output=True,
                text=True,
                check=True,
                env=env,
            ).stdout.split()[-1]
            line = {"compile": label, "env_ids": env_ids, "first_use_s": round(float(seconds), 2)}
            print(json.dumps(line), flush=True)


def _has_numba() -> bool:
    from palaestra.vector.native import numba_available

    return numba_available()


def main() -> int:
    """Run every measurement."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--no-numba", action="store_true", help="skip the numba measurements")
    args = parser.parse_args()
    streams(1024, 40)
    streams(8, 1)
    squares(1024)
    squares(8)
    row_by_row(8)
    float32_split(1024)
    if not args.no_numba and _has_numba():
        compiled_squares(1024)
        for env_id in ("CartPole-v1", "Acrobot-v1", "Pendulum-v1"):
            compile_cost([env_id])
        compile_cost(["CartPole-v1", "Acrobot-v1", "Pendulum-v1"])
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
