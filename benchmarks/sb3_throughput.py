"""SB3 PPO steps/s on CartPole: sb3_vec_env(palaestra native batch) vs DummyVecEnv of Gymnasium.

The same PPO (SB3 defaults except ``n_steps``, so every update sees 2048 transitions) trains on

- ``sb3_vec_env(palaestra.make_vec("CartPole-v1", N, autoreset_mode="SameStep"))``: the
  natively batched CartPole behind the adapter;
- ``DummyVecEnv([lambda: gymnasium.make("CartPole-v1")] * N)``: SB3's usual setup;

for N = 8 and 64, alternating, in the same run. Besides the overall steps/s, the script times
where SB3's time goes: the env (``step_wait``, measured inside the VecEnv), the rollout's
policy forward passes and bookkeeping (rest of ``collect_rollouts``) and the gradient updates
(``train``). The env share of PPO is small, so the overall ratio is far below the env ratio.

Usage:
    python benchmarks/sb3_throughput.py [--timesteps 32768] [--repeats 2]

Output: JSON lines, one per run (``"kind": "run"``) and one ratio per N (``"kind": "ratio"``,
palaestra's median steps/s over DummyVecEnv's, total and env-only). A short warm-up run of
each setup comes first and is not reported.
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from typing import Any

import gymnasium
import torch
from stable_baselines3 import PPO
from stable_baselines3.common.vec_env import DummyVecEnv, VecEnvWrapper

import palaestra
from palaestra.compat import sb3_vec_env


class TimedVecEnv(VecEnvWrapper):
    """Add up the seconds spent in the wrapped VecEnv's ``step_wait`` and ``reset``."""

    def __init__(self, venv: Any):
        super().__init__(venv)
        self.env_seconds = 0.0

    def reset(self) -> Any:
        start = time.perf_counter()
        observations = self.venv.reset()
        self.env_seconds += time.perf_counter() - start
        return observations

    def step_wait(self) -> Any:
        start = time.perf_counter()
        result = self.venv.step_wait()
        self.env_seconds += time.perf_counter() - start
        return result


def make_venv(kind: str, num_envs: int) -> Any:
    """Build the VecEnv under test."""
    if kind == "palaestra-native":
        envs = palaestra.make_vec("CartPole-v1", num_envs, autoreset_mode="SameStep")
        return sb3_vec_env(envs)
    return DummyVecEnv([lambda: gymnasium.make("CartPole-v1")] * num_envs)


def run(kind: str, num_envs: int, timesteps: int, seed: int) -> dict[str, Any]:
    """Train PPO for ``timesteps`` and report steps/s and the split of the time."""
    venv = TimedVecEnv(make_venv(kind, num_envs))
    model = PPO("MlpPolicy", venv, n_steps=max(2048 // num_envs, 1), seed=seed, device="cpu")
    timings = {"collect": 0.0, "train": 0.0}
    for name in timings:
        method = getattr(model, "collect_rollouts" if name == "collect" else name)

        def timed(*args: Any, _method: Any = method, _name: str = name, **kwargs: Any) -> Any:
            start = time.perf_counter()
            try:
                return _method(*args, **kwargs)
            finally:
                timings[_name] += time.perf_counter() - start

        setattr(model, "collect_rollouts" if name == "collect" else name, timed)
    start = time.perf_counter()
    model.learn(total_timesteps=timesteps)
    total = time.perf_counter() - start
    venv.close()
    return {
        "kind": "run",
        "venv": kind,
        "num_envs": num_envs,
        "timesteps": model.num_timesteps,
        "steps_per_s": round(model.num_timesteps / total),
        "env_steps_per_s": round(model.num_timesteps / venv.env_seconds),
        "seconds": round(total, 2),
        "env_share": round(venv.env_seconds / total, 3),
        "rollout_policy_share": round((timings["collect"] - venv.env_seconds) / total, 3),
        "train_share": round(timings["train"] / total, 3),
    }


def main() -> None:
    """Run both VecEnvs at N=8 and N=64, alternating, and print the JSON lines."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--timesteps", type=int, default=32_768)
    parser.add_argument("--repeats", type=int, default=2)
    args = parser.parse_args()
    torch.set_num_threads(1)
    # Warm-up, not reported: imports, torch's first passes, the native env's compiled loops.
    for kind in ("palaestra-native", "dummy-gymnasium"):
        for num_envs in (8, 64):
            run(kind, num_envs, 512, seed=0)
    for num_envs in (8, 64):
        runs: dict[str, list[dict[str, Any]]] = {"palaestra-native": [], "dummy-gymnasium": []}
        for repeat in range(args.repeats):
            for kind in runs:
                result = run(kind, num_envs, args.timesteps, seed=repeat)
                runs[kind].append(result)
                print(json.dumps(result), flush=True)
        ours, theirs = runs["palaestra-native"], runs["dummy-gymnasium"]
        print(
            json.dumps(
                {
                    "kind": "ratio",
                    "num_envs": num_envs,
                    "total": round(
                        statistics.median(r["steps_per_s"] for r in ours)
                        / statistics.median(r["steps_per_s"] for r in theirs),
                        3,
                    ),
                    "env_only": round(
                        statistics.median(r["env_steps_per_s"] for r in ours)
                        / statistics.median(r["env_steps_per_s"] for r in theirs),
                        3,
                    ),
                }
            ),
            flush=True,
        )


if __name__ == "__main__":
    main()
