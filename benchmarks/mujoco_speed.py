"""MuJoCo speed: the batched vector env against Gymnasium's sync/async and EnvPool; one env.

Prints one JSON line per measurement, with ratios measured side by side in the same run
(repeats interleaved round-robin, so machine load drifts hit every mode alike):

* ``vector``: env-steps per second of ``make_vec(id, n)`` (palaestra's batched
  ``MujocoVectorEnv``; ``native``: its default stepper, ``native-batch``: one
  ``mujoco.batch`` call per step, ``native-threads``: one ``MjData`` per sub-env on
  ``num_threads`` Python threads; the default is ``threads`` for the tasks that read
  contact forces, Ant and Humanoid, and ``batch`` for the others) and of
  Gymnasium's ``SyncVectorEnv`` / ``AsyncVectorEnv`` and
  EnvPool's synchronous pool (when ``envpool`` imports), with ``ratio_to_gym-sync``,
  ``ratio_to_gym-async`` and (when EnvPool ran) ``ratio_to_envpool``;
  The batched env is measured in the steady state of its default accelerator, ``"auto"``:
  moved to numba (as a run lasting a second moves by itself) where numba is installed;
* ``single``: seconds per ``step`` of ``palaestra.make(id)`` and ``gymnasium.make(id)``,
  with ``ratio_to_gymnasium`` (below 1 is faster).

EnvPool is a reference only, never a dependency. Its 1.2.5 wheel imports on this Python
and numpy when installed with ``pip install --no-deps --target DIR envpool dm_env dm-tree
optree`` plus ``envpool-assets`` in a second directory, with empty MyoSuite metadata files
(``envpool/mujoco/myosuite/assets/metadata/myosuite_tasks.json`` holding ``[]`` and
``myosuite_oracle_metadata.json`` holding ``{"version": "0", "commit": "0",
"numpy2_broken_ids": []}``) and an empty ``envpool/atari/roms`` directory; put both
directories on ``PYTHONPATH``. (``mjbatch`` 0.1.4 installs too, but pins ``mujoco==3.14.0``,
whose binary cannot run beside the ``mujoco`` 4.0.0 the suite needs; MuJoCo 4.0's own
``mujoco.batch`` is measured instead: it is ``native``.) ``benchmarks/run_all.py`` keeps a
caller's ``PYTHONPATH`` after the tree's, so the same directories give its MuJoCo sections
their EnvPool column.

Usage (from the repository root)::

    python benchmarks/mujoco_speed.py [--ids HalfCheetah-v5,Ant-v5,Humanoid-v5]
        [--num-envs 8,64] [--steps 100] [--repeats 5] [--single-steps 2000]
        [--modes native,gym-sync,gym-async,envpool] [--no-single]
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import statistics
import sys
import time
from typing import Any

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def _makers() -> dict[str, Any]:
    import gymnasium

    import palaestra

    makers = {
        "native": lambda env_id, n: palaestra.make_vec(env_id, n),
        "native-batch": lambda env_id, n: palaestra.make_vec(env_id, n, stepper="batch"),
        "native-threads": lambda env_id, n: palaestra.make_vec(env_id, n, stepper="threads"),
        "gym-sync": lambda env_id, n: gymnasium.make_vec(env_id, n, vectorization_mode="sync"),
        "gym-async": lambda env_id, n: gymnasium.make_vec(env_id, n, vectorization_mode="async"),
    }
    if importlib.util.find_spec("envpool") is not None:
        from palaestra.cli.bench import EnvPoolSync

        makers["envpool"] = EnvPoolSync
    return makers


def _vector_rates(
    env_id: str, num_envs: int, steps: int, repeats: int, modes: list[str] | None = None
) -> dict[str, float]:
    from palaestra.vector.native import numba_available

    makers = {m: make for m, make in _makers().items() if modes is None or m in modes}
    envs = {mode: make(env_id, num_envs) for mode, make in makers.items()}
    rng = np.random.default_rng(0)
    space = envs["native"].action_space
    actions = rng.uniform(space.low, space.high, (steps, *space.shape)).astype(np.float32)
    for mode, env in envs.items():
        env.reset(seed=0)
        for action in actions[: max(1, steps // 10)]:
            env.step(action)
        native = env.unwrapped if mode.startswith("native") else None
        if native is not None and numba_available() and native.has_compiled_dynamics():
            # The default "auto" accelerator's steady state: a run that has lasted a second
            # moves to numba by itself (palaestra.vector.native.tiers); a short benchmark
            # would not, so it moves at once (and its first compiled step is warm-up).
            native.use_compiled_path()
            env.step(actions[0])
    rates: dict[str, list[float]] = {mode: [] for mode in envs}
    for _ in range(repeats):
        for mode, env in envs.items():
            started = time.perf_counter()
            for action in actions:
                env.step(action)
            rates[mode].append(steps * num_envs / (time.perf_counter() - started))
    for env in envs.values():
        env.close()
    return {mode: statistics.median(values) for mode, values in rates.items()}


def _single_step_seconds(env_id: str, steps: int, repeats: int) -> dict[str, float]:
    import gymnasium

    import palaestra

    envs = {"palaestra": palaestra.make(env_id), "gymnasium": gymnasium.make(env_id)}
    rng = np.random.default_rng(0)
    space = envs["palaestra"].action_space
    actions = rng.uniform(space.low, space.high, (steps, *space.shape)).astype(np.float32)
    seconds: dict[str, list[float]] = {name: [] for name in envs}
    for env in envs.values():
        env.reset(seed=0)
    for _ in range(repeats):
        for name, env in envs.items():
            env.reset(seed=0)
            started = time.perf_counter()
            for action in actions:
                if env.step(action)[2]:
                    env.reset()
            seconds[name].append((time.perf_counter() - started) / steps)
    return {name: statistics.median(values) for name, values in seconds.items()}


def main() -> int:
    """Run the measurements and print JSON lines."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--ids", default="HalfCheetah-v5,Ant-v5,Humanoid-v5")
    parser.add_argument("--num-envs", default="8,64")
    parser.add_argument("--steps", type=int, default=100)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--single-steps", type=int, default=2000)
    parser.add_argument(
        "--modes",
        default=None,
        help="comma-separated vector modes (default: all; e.g. native,gym-sync,gym-async,envpool)",
    )
    parser.add_argument("--no-single", action="store_true", help="skip the single-env timings")
    args = parser.parse_args()
    conditions = {
        "cpu_count": os.cpu_count(),
        "usable_cores": len(os.sched_getaffinity(0)),
        "load_average_1min": round(os.getloadavg()[0], 2),
    }
    print(json.dumps({"conditions": conditions}), flush=True)
    for env_id in args.ids.split(","):
        for num_envs in (int(n) for n in args.num_envs.split(",")):
            modes = None if args.modes is None else args.modes.split(",")
            rates = _vector_rates(env_id, num_envs, args.steps, args.repeats, modes)
            for mode, rate in rates.items():
                line = {"kind": "vector", "env_id": env_id, "num_envs": num_envs, "mode": mode}
                line["steps_per_s"] = round(rate)
                for reference in ("gym-sync", "gym-async", "envpool"):
                    if reference in rates:
                        line[f"ratio_to_{reference}"] = round(rate / rates[reference], 3)
                print(json.dumps(line), flush=True)
        if args.no_single:
            continue
        seconds = _single_step_seconds(env_id, args.single_steps, args.repeats)
        for name, value in seconds.items():
            line = {"kind": "single", "env_id": env_id, "library": name}
            line["us_per_step"] = round(value * 1e6, 1)
            line["ratio_to_gymnasium"] = round(value / seconds["gymnasium"], 3)
            print(json.dumps(line), flush=True)
    print(json.dumps({"conditions_after": {"load_average_1min": round(os.getloadavg()[0], 2)}}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
