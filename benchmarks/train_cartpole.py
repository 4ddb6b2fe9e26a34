"""Wall-clock time and env steps for PPO to solve CartPole-v1: palaestra vs Stable-Baselines3.

palaestra runs twice per seed: its hand-written MLP fast path (the default) and its autograd
path (``fast_path=False``, the path every other policy takes). All trainers use the same
hyper-parameters (the well-known tuned CartPole settings: 8 envs,
n_steps 32, batch 256, 20 epochs, gamma 0.98, GAE lambda 0.8, learning rate 1e-3 annealed
linearly over the step budget, clip 0.2, no entropy bonus, 64x64 tanh policy and value
networks, one torch thread). Every ``--eval-every`` env steps the training clock is paused
and the policy is evaluated deterministically over 100 episodes by the same evaluator
(palaestra's batched CartPole); a run is solved when that mean reaches 475. The reported
seconds are training time only. Seeds alternate between the trainers so machine load hits
them alike. NumPy's OpenBLAS runs on one thread (``OPENBLAS_NUM_THREADS=1``, set here).

Needs ``pip install stable-baselines3`` (check with ``pip install --dry-run`` that it does
not replace your torch); without it only palaestra runs.

Usage:
    python benchmarks/train_cartpole.py [--seeds 5] [--budget 100000] [--eval-every 1024]

Output: one ``RESULT`` line per run, one ``SUMMARY`` line per trainer and ``RATIO`` lines
(SB3 over each palaestra path), all ``key=value`` separated by spaces.
"""

from __future__ import annotations

import argparse
import os
import statistics
import time

# NumPy's BLAS (palaestra's compiled PPO step multiplies through it) on one thread, like torch.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import numpy as np
import torch

import palaestra
from palaestra.train.evaluation import evaluate
from palaestra.train.ppo import PPO

THRESHOLD = 475.0
EVAL_EPISODES = 100


class EvalClock:
    """Training clock that excludes evaluation time, and the solve check."""

    def __init__(self, eval_every: int):
        self.eval_every = eval_every
        self.next_eval = eval_every
        self.train_seconds = 0.0
        self.started = time.perf_counter()
        self.solved_at: int | None = None
        self.last_mean = float("nan")
        self.envs = palaestra.make_vec("CartPole-v1", num_envs=EVAL_EPISODES)

    def maybe_evaluate(self, policy, steps: int) -> bool:
        """Return True when training should stop (solved)."""
        if steps < self.next_eval:
            return False
        self.next_eval += self.eval_every
        self.train_seconds += time.perf_counter() - self.started
        self.last_mean = float(evaluate(policy, self.envs, EVAL_EPISODES, seed=10_000).mean())
        self.started = time.perf_counter()
        if self.last_mean >= THRESHOLD:
            self.solved_at = steps
            return True
        return False

    def finish(self) -> float:
        if self.solved_at is None:
            self.train_seconds += time.perf_counter() - self.started
        return self.train_seconds


def run_palaestra(seed: int, budget: int, eval_every: int, fast_path: bool = True) -> dict:
    clock = EvalClock(eval_every)
    # The defaults are the CartPole-v1 preset: the hyper-parameters listed above.
    agent = PPO("MlpPolicy", "CartPole-v1", seed=seed, fast_path=None if fast_path else False)
    assert agent.fast_path == fast_path
    clock.started = time.perf_counter()
    agent.learn(
        budget,
        callback=lambda stats: not clock.maybe_evaluate(agent, stats["steps"]),
        progress_bar=False,
    )
    seconds = clock.finish()
    impl = "palaestra" if fast_path else "palaestra-autograd"
    return _result(impl, seed, clock, agent.num_steps, seconds)


class _SB3Policy:
    def __init__(self, model):
        self.model = model

    def predict(self, observations, deterministic=True):
        return self.model.predict(observations, deterministic=deterministic)[0]


def run_sb3(seed: int, budget: int, eval_every: int) -> dict:
    from stable_baselines3 import PPO as SB3PPO
    from stable_baselines3.common.callbacks import BaseCallback
    from stable_baselines3.common.env_util import make_vec_env

    # One intra-op thread, as palaestra uses: for these tiny networks it is SB3's fastest
    # setting too (with more threads, workers spin against each other on a busy machine).
    torch.set_num_threads(1)
    clock = EvalClock(eval_every)

    class StopWhenSolved(BaseCallback):
        def __init__(self):
            super().__init__()
            self.stop = False

        def _on_rollout_start(self) -> None:
            # Called after each update, so the evaluation point matches palaestra's.
            self.stop = clock.maybe_evaluate(_SB3Policy(self.model), self.num_timesteps)

        def _on_step(self) -> bool:
            return not self.stop

    envs = make_vec_env("CartPole-v1", n_envs=8, seed=seed)
    model = SB3PPO(
        "MlpPolicy",
        envs,
        n_steps=32,
        batch_size=256,
        n_epochs=20,
        gamma=0.98,
        gae_lambda=0.8,
        learning_rate=lambda progress_remaining: 1e-3 * progress_remaining,
        clip_range=0.2,
        ent_coef=0.0,
        seed=seed,
        device="cpu",
        verbose=0,
    )
    clock.started = time.perf_counter()
    model.learn(budget, callback=StopWhenSolved())
    seconds = clock.finish()
    steps = clock.solved_at if clock.solved_at is not None else model.num_timesteps
    return _result("sb3", seed, clock, steps, seconds)


def _result(impl: str, seed: int, clock: EvalClock, steps: int, seconds: float) -> dict:
    result = {
        "impl": impl,
        "seed": seed,
        "solved": int(clock.solved_at is not None),
        "steps": clock.solved_at if clock.solved_at is not None else steps,
        "seconds": round(seconds, 3),
        "eval_mean": round(clock.last_mean, 1),
    }
    print("RESULT " + " ".join(f"{k}={v}" for k, v in result.items()), flush=True)
    return result


def summarize(impl: str, results: list[dict]) -> dict:
    seconds = [r["seconds"] for r in results]
    steps = [r["steps"] for r in results]
    summary = {
        "impl": impl,
        "runs": len(results),
        "solved": sum(r["solved"] for r in results),
        "median_seconds": round(statistics.median(seconds), 3),
        "mean_seconds": round(float(np.mean(seconds)), 3),
        "median_steps": int(statistics.median(steps)),
        "mean_steps": int(np.mean(steps)),
    }
    print("SUMMARY " + " ".join(f"{k}={v}" for k, v in summary.items()), flush=True)
    return summary


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=5)
    parser.add_argument("--budget", type=int, default=100_000)
    parser.add_argument("--eval-every", type=int, default=1024)
    parser.add_argument("--skip-sb3", action="store_true")
    args = parser.parse_args()
    try:
        import stable_baselines3  # noqa: F401

        with_sb3 = not args.skip_sb3
    except ImportError:
        print("stable-baselines3 is not installed: running palaestra only")
        with_sb3 = False
    ours, autograd, theirs = [], [], []
    for seed in range(args.seeds):
        ours.append(run_palaestra(seed, args.budget, args.eval_every))
        autograd.append(run_palaestra(seed, args.budget, args.eval_every, fast_path=False))
        if with_sb3:
            theirs.append(run_sb3(seed, args.budget, args.eval_every))
    mine = summarize("palaestra", ours)
    mine_autograd = summarize("palaestra-autograd", autograd)
    if with_sb3:
        other = summarize("sb3", theirs)
        for name, summary in (("palaestra", mine), ("palaestra_autograd", mine_autograd)):
            ratio = other["median_seconds"] / max(summary["median_seconds"], 1e-9)
            mean_ratio = other["mean_seconds"] / max(summary["mean_seconds"], 1e-9)
            print(
                f"RATIO sb3_over_{name}_median_seconds={ratio:.2f} "
                f"sb3_over_{name}_mean_seconds={mean_ratio:.2f}",
                flush=True,
            )


if __name__ == "__main__":
    main()
