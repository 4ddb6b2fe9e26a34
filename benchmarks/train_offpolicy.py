"""Wall-clock time for DQN (CartPole-v1) and SAC (Pendulum-v1) to solve: palaestra vs SB3.

Both trainers use the same hyper-parameters, rl-baselines3-zoo's tuned sets:

- DQN on CartPole-v1: learning rate 2.3e-3, batch 64, buffer 100000, learning starts 1000,
  gamma 0.99, target update every 10 steps, train every 256 steps with 128 gradient steps,
  exploration fraction 0.16 to a final epsilon of 0.04, 256x256 ReLU Q-network, budget 50000.
  palaestra's DQN is a double DQN by default, Stable-Baselines3's is not: the DQN runs time
  both palaestra variants, ``palaestra`` (double DQN, the default) and ``palaestra-dqn``
  (``double_q=False``, SB3's algorithm exactly), against SB3.
- SAC on Pendulum-v1: learning rate 1e-3, the rest SB3's defaults (buffer 1e6, batch 256,
  tau 0.005, gamma 0.99, one gradient step per env step, learning starts 100, automatic
  entropy coefficient, 256x256 ReLU actor and twin critics), budget 20000.

Every ``--eval-every`` env steps the training clock is paused and the policy is evaluated
deterministically over 100 episodes by the same evaluator (palaestra's batched env); a run is
solved when that mean reaches the threshold (475 for CartPole, -200 for Pendulum). The
reported seconds are training time only. Both use one torch thread (``--threads N``: N for
both); seeds alternate between the trainers so machine load hits both alike.

Usage:
    python benchmarks/train_offpolicy.py --algo dqn [--seeds 5] [--first-seed 0]
    python benchmarks/train_offpolicy.py --algo sac [--seeds 5] [--first-seed 0]
    python benchmarks/train_offpolicy.py --algo dqn --threads 2  # torch threads, both

``--first-seed`` lets a 5-seed measurement be split into short runs (one seed each); the
summary lines of each run cover only its own seeds, so combine the ``"kind": "run"`` lines.

``--proxy`` measures a steadier number instead: after ``learning_starts`` untimed steps, the
wall time of ``--proxy-steps`` further env steps (with their gradient steps) for both
libraries, repeats alternating, scaled to seconds per 10k env steps (DQN: 5000 gradient
steps; SAC: 10000); one ``"kind": "proxy"`` line per repeat and a ``"kind": "proxy_ratio"``
line with the medians.

Output: one JSON line per run (``"kind": "run"``), one per trainer (``"kind": "summary"``)
and a ``"kind": "ratio"`` line per palaestra variant (SB3's median seconds over its).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import time
from typing import Any

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")  # NumPy's BLAS on one thread, like torch

import torch

import palaestra
from palaestra.train.evaluation import evaluate

SETUPS = {
    "dqn": {
        "env_id": "CartPole-v1",
        "threshold": 475.0,
        "budget": 50_000,
        "eval_every": 2048,
        "hyper_parameters": {
            "learning_rate": 2.3e-3,
            "batch_size": 64,
            "buffer_size": 100_000,
            "learning_starts": 1000,
            "gamma": 0.99,
            "target_update_interval": 10,
            "train_freq": 256,
            "gradient_steps": 128,
            "exploration_fraction": 0.16,
            "exploration_final_eps": 0.04,
        },
        "net": [256, 256],
    },
    "sac": {
        "env_id": "Pendulum-v1",
        "threshold": -200.0,
        "budget": 20_000,
        "eval_every": 1000,
        "hyper_parameters": {"learning_rate": 1e-3},
        "net": [256, 256],
    },
}
EVAL_EPISODES = 100
VARIANTS = {
    "dqn": {"palaestra": {}, "palaestra-dqn": {"double_q": False}},
    "sac": {"palaestra": {}},
}
"""palaestra trainers per algorithm: name -> hyper-parameters added to the shared set."""
TORCH_THREADS = 1
"""Intra-op torch threads for both libraries (``--threads``); NumPy's BLAS stays on one."""


class EvalClock:
    """Training clock that excludes evaluation time, and the solve check."""

    def __init__(self, env_id: str, eval_every: int, threshold: float):
        self.eval_every, self.threshold = eval_every, threshold
        self.next_eval = eval_every
        self.train_seconds = 0.0
        self.started = time.perf_counter()
        self.solved_at: int | None = None
        self.last_mean = float("nan")
        self.envs = palaestra.make_vec(env_id, num_envs=EVAL_EPISODES)

    def maybe_evaluate(self, policy, steps: int) -> bool:
        """Return True when training should stop (solved)."""
        if steps < self.next_eval:
            return False
        while self.next_eval <= steps:
            self.next_eval += self.eval_every
        self.train_seconds += time.perf_counter() - self.started
        self.last_mean = float(evaluate(policy, self.envs, EVAL_EPISODES, seed=10_000).mean())
        self.started = time.perf_counter()
        if self.last_mean >= self.threshold:
            self.solved_at = steps
            return True
        return False

    def finish(self) -> float:
        if self.solved_at is None:
            self.train_seconds += time.perf_counter() - self.started
        return self.train_seconds


def _palaestra_agent(algo: str, seed: int, variant: str, log_interval: int, **options: Any) -> Any:
    """palaestra's DQN or SAC with the setup's hyper-parameters, the variant's and ``options``."""
    from palaestra.train.dqn import DQN
    from palaestra.train.sac import SAC

    setup = SETUPS[algo]
    trainer = DQN if algo == "dqn" else SAC
    return trainer(
        "MlpPolicy",
        setup["env_id"],
        seed=seed,
        hidden_sizes=tuple(setup["net"]),
        log_interval=log_interval,
        torch_threads=TORCH_THREADS,
        **setup["hyper_parameters"],
        **VARIANTS[algo][variant],
        **options,
    )


def _sb3_model(algo: str, seed: int) -> Any:
    """SB3's DQN or SAC with the setup's hyper-parameters, on ``TORCH_THREADS`` threads."""
    import gymnasium
    from stable_baselines3 import DQN as SB3DQN
    from stable_baselines3 import SAC as SB3SAC

    torch.set_num_threads(TORCH_THREADS)
    setup = SETUPS[algo]
    trainer = SB3DQN if algo == "dqn" else SB3SAC
    return trainer(
        "MlpPolicy",
        gymnasium.make(setup["env_id"]),
        seed=seed,
        device="cpu",
        verbose=0,
        policy_kwargs={"net_arch": setup["net"]},
        **setup["hyper_parameters"],
    )


def run_palaestra(algo: str, seed: int, variant: str = "palaestra") -> dict:
    setup = SETUPS[algo]
    agent = _palaestra_agent(algo, seed, variant, log_interval=setup["eval_every"])
    clock = EvalClock(setup["env_id"], setup["eval_every"], setup["threshold"])
    clock.started = time.perf_counter()
    agent.learn(
        setup["budget"],
        callback=lambda stats: not clock.maybe_evaluate(agent, stats["steps"]),
        progress_bar=False,
    )
    return _result(variant, algo, seed, clock, agent.num_steps, clock.finish())


class _SB3Policy:
    def __init__(self, model):
        self.model = model

    def predict(self, observations, deterministic=True):
        return self.model.predict(observations, deterministic=deterministic)[0]


def run_sb3(algo: str, seed: int) -> dict:
    from stable_baselines3.common.callbacks import BaseCallback

    setup = SETUPS[algo]
    clock = EvalClock(setup["env_id"], setup["eval_every"], setup["threshold"])

    class StopWhenSolved(BaseCallback):
        def _on_step(self) -> bool:
            return not clock.maybe_evaluate(_SB3Policy(self.model), self.num_timesteps)

    model = _sb3_model(algo, seed)
    clock.started = time.perf_counter()
    model.learn(setup["budget"], callback=StopWhenSolved())
    seconds = clock.finish()
    return _result("sb3", algo, seed, clock, model.num_timesteps, seconds)


def proxy_palaestra(algo: str, seed: int, steps: int, variant: str = "palaestra") -> float:
    agent = _palaestra_agent(algo, seed, variant, log_interval=10**9)
    agent.learn(agent.config.learning_starts, progress_bar=False)
    started = time.perf_counter()
    agent.learn(steps, progress_bar=False)
    return time.perf_counter() - started


def proxy_sb3(algo: str, seed: int, steps: int) -> float:
    model = _sb3_model(algo, seed)
    model.learn(model.learning_starts)
    started = time.perf_counter()
    model.learn(steps, reset_num_timesteps=False)
    return time.perf_counter() - started


def run_proxy(algo: str, repeats: int, steps: int) -> None:
    scale = 10_000 / steps
    times: dict[str, list[float]] = {name: [] for name in (*VARIANTS[algo], "sb3")}
    for repeat in range(repeats):
        for impl, store in times.items():
            if impl == "sb3":
                seconds = proxy_sb3(algo, repeat, steps)
            else:
                seconds = proxy_palaestra(algo, repeat, steps, impl)
            store.append(seconds * scale)
            line = {"kind": "proxy", "impl": impl, "algo": algo, "repeat": repeat}
            line["torch_threads"] = TORCH_THREADS
            line["seconds_per_10k_steps"] = round(seconds * scale, 3)
            print(json.dumps(line), flush=True)
    other = statistics.median(times["sb3"])
    for variant in VARIANTS[algo]:
        mine = statistics.median(times[variant])
        result = {"kind": "proxy_ratio", "algo": algo, "impl": variant, "steps": steps}
        result.update(
            repeats=repeats,
            palaestra_median=round(mine, 3),
            sb3_median=round(other, 3),
            sb3_over_palaestra=other / mine,
            torch_threads=TORCH_THREADS,
        )
        print(json.dumps(result), flush=True)


def _result(impl: str, algo: str, seed: int, clock: EvalClock, steps: int, seconds: float):
    result = {
        "kind": "run",
        "impl": impl,
        "algo": algo,
        "seed": seed,
        "solved": clock.solved_at is not None,
        "steps": clock.solved_at if clock.solved_at is not None else steps,
        "seconds": round(seconds, 3),
        "eval_mean": round(clock.last_mean, 1),
        "torch_threads": TORCH_THREADS,
    }
    print(json.dumps(result), flush=True)
    return result


def summarize(impl: str, algo: str, results: list[dict]) -> dict:
    summary = {
        "kind": "summary",
        "impl": impl,
        "algo": algo,
        "runs": len(results),
        "solved": sum(r["solved"] for r in results),
        "median_seconds": round(statistics.median(r["seconds"] for r in results), 3),
        "median_steps": int(statistics.median(r["steps"] for r in results)),
        "torch_threads": TORCH_THREADS,
    }
    print(json.dumps(summary), flush=True)
    return summary


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--algo", choices=sorted(SETUPS), required=True)
    parser.add_argument("--seeds", type=int, default=5)
    parser.add_argument("--first-seed", type=int, default=0)
    parser.add_argument("--skip-sb3", action="store_true")
    parser.add_argument("--proxy", action="store_true", help="time fixed steps, not solving")
    parser.add_argument("--proxy-steps", type=int, default=2560)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--threads", type=int, default=1, help="torch threads, both libraries")
    args = parser.parse_args()
    global TORCH_THREADS
    TORCH_THREADS = args.threads
    torch.set_num_threads(args.threads)
    if args.proxy:
        run_proxy(args.algo, args.repeats, args.proxy_steps)
        return
    results: dict[str, list[dict]] = {name: [] for name in VARIANTS[args.algo]}
    if not args.skip_sb3:
        results["sb3"] = []
    for seed in range(args.first_seed, args.first_seed + args.seeds):
        for impl, store in results.items():
            if impl == "sb3":
                store.append(run_sb3(args.algo, seed))
            else:
                store.append(run_palaestra(args.algo, seed, impl))
    summaries = {impl: summarize(impl, args.algo, runs) for impl, runs in results.items()}
    if "sb3" in summaries:
        other = summaries["sb3"]["median_seconds"]
        for variant in VARIANTS[args.algo]:
            ratio = other / max(summaries[variant]["median_seconds"], 1e-9)
            line = {
                "kind": "ratio",
                "algo": args.algo,
                "impl": variant,
                "sb3_over_palaestra": ratio,
                "torch_threads": TORCH_THREADS,
            }
            print(json.dumps(line), flush=True)


if __name__ == "__main__":
    main()
