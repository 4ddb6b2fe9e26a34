"""How fast one SAC gradient step can be on this CPU: the unavoidable kernels alone, vs SB3.

SAC on Pendulum-v1 with the benchmark's set-up (``train_offpolicy.py --algo sac``: batch
256, 256x256 ReLU actor and twin critics, one torch thread) spends its arithmetic in the
256x256 hidden layers; every other layer is at least 64x smaller. One gradient step must
do these 256x256-by-256x256 products (batch 256), whatever the implementation:

- actor forward over the observations and the next observations: 2 (one 512-row product);
- target critics over the next observations: 2;
- critics over the stored actions, forward 2 and backward 4 (weight and input gradients);
- critics over the actor's actions, forward 2 and backward to the actions 1 (each row's
  gradient reaches only the critic with the smaller value: 256 rows in all);
- actor backward, weight and input gradients: 2.

15 products, plus the ReLU and ReLU-backward passes over those layers, the bias adds and
three fused Adam steps and the Polyak update over the parameters. This script runs exactly
those kernels on warm buffers in a loop (``ceiling``), then times palaestra's SAC gradient
step (``palaestra``, ``SAC._train`` with the compiled loops; ``palaestra-torch-ops``, the
same hand-written step as torch operations only, ``SACGradients(compiled=False)``;
``palaestra-autograd``, its autograd step, i.e. ``fast_path=False``) and SB3's (``sb3``,
``SAC.train``) in the same run, each after 1000 env steps of its own training. One JSON
line per measurement (milliseconds per gradient step, median of the repeats) and a
``"kind": "ratios"`` line.

``--isolated`` times each trainer in a process of its own instead (the processes
alternating, ``--rounds`` rounds of ``repeats / rounds`` repeats each), so that no trainer
runs in a process another has warmed up or filled (at two threads palaestra's step moves
between ~4.5 and ~8 ms either way: see the SAC section of ``TRAINING.md``).

Usage:
    python benchmarks/train_sac_ceiling.py [--threads 1] [--steps 100] [--repeats 5]
    python benchmarks/train_sac_ceiling.py --isolated [--rounds 2] [--repeats 6]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import train_offpolicy

from palaestra.train.sac_gradients import SACGradients

BATCH, WIDTH = 256, 256


def ceiling_step_fn():
    """Return a function running one step's unavoidable kernels on warm buffers."""
    torch.manual_seed(0)

    def matrix(rows=WIDTH):
        return torch.randn(rows, WIDTH) * 0.05

    weights = {name: matrix() for name in ("actor", "q1", "q2", "t1", "t2")}
    bias = torch.zeros(WIDTH)
    stacked_in, stacked_out = matrix(2 * BATCH), matrix(2 * BATCH)
    hidden = {name: matrix() for name in ("q1a", "q1b", "q2a", "q2b", "g1", "g2", "g3")}
    grads = {name: torch.zeros(WIDTH, WIDTH) for name in ("actor", "q1", "q2")}
    half = BATCH // 2
    # actor (one 256x256 layer), critics (two), entropy coefficient (one number)
    params = [[matrix()], [matrix(), matrix()], [torch.zeros(1)]]
    moments = [([torch.zeros_like(p) for p in g], [torch.zeros_like(p) for p in g]) for g in params]
    steps = [[torch.zeros(()) for _ in g] for g in params]
    targets = [weights["t1"], weights["t2"]]
    sources = [weights["q1"], weights["q2"]]

    def step() -> None:
        # actor forward over obs and next obs (one 512-row product)
        torch.addmm(bias, stacked_in, weights["actor"].t(), out=stacked_out).relu_()
        # target critics, critics forward
        for name, weight in (("q1a", "t1"), ("q2a", "t2"), ("q1a", "q1"), ("q2a", "q2")):
            torch.addmm(bias, hidden["q1b"], weights[weight].t(), out=hidden[name]).relu_()
        # critics backward: weight and input gradients, ReLU backward
        for q, act in (("q1", "q1a"), ("q2", "q2a")):
            torch.mm(hidden["g1"].t(), hidden[act], out=grads[q])
            torch.mm(hidden["g1"], weights[q], out=hidden["g2"])
            torch.ops.aten.threshold_backward.grad_input(
                hidden["g2"], hidden[act], 0, grad_input=hidden["g2"]
            )
        # critics over the actor's actions: forward, and backward over each one's rows
        for q, act in (("q1", "q1b"), ("q2", "q2b")):
            torch.addmm(bias, hidden["q1a"], weights[q].t(), out=hidden[act]).relu_()
        torch.mm(hidden["g1"][:half], weights["q1"], out=hidden["g3"][:half])
        torch.mm(hidden["g1"][half:], weights["q2"], out=hidden["g3"][half:])
        # actor backward: weight and input gradients
        torch.mm(hidden["g2"].t(), stacked_out[:BATCH], out=grads["actor"])
        torch.mm(hidden["g2"], weights["actor"], out=hidden["g3"])
        torch.ops.aten.threshold_backward.grad_input(
            hidden["g3"], stacked_out[:BATCH], 0, grad_input=hidden["g3"]
        )
        # three fused Adam steps (over the 256x256 layers' parameters) and Polyak
        for group, (m, v), count in zip(params, moments, steps):
            torch._fused_adam_(
                group, group, m, v, [], count, amsgrad=False, lr=1e-3, beta1=0.9,
                beta2=0.999, weight_decay=0.0, eps=1e-8, maximize=False,
            )  # fmt: skip
        torch._foreach_lerp_(targets, sources, 0.005)

    return step


def time_per_step(run, steps: int, repeats: int) -> list[float]:
    """Milliseconds per gradient step of ``run(steps)``, once per repeat."""
    out = []
    for _ in range(repeats):
        started = time.perf_counter()
        run(steps)
        out.append((time.perf_counter() - started) / steps * 1e3)
    return out


IMPLS = ("ceiling", "palaestra", "palaestra-torch-ops", "palaestra-autograd", "sb3")


def build_runs(names: tuple[str, ...]) -> dict:
    """``name -> run(steps)`` for the named trainers, each warmed up (1000 env steps)."""
    runs = {}
    if "ceiling" in names:
        ceiling = ceiling_step_fn()
        for _ in range(10):
            ceiling()

        def run_ceiling(steps: int) -> None:
            for _ in range(steps):
                ceiling()

        runs["ceiling"] = run_ceiling

    def trainer(agent):
        def run(steps: int) -> None:
            for _ in range(steps):
                agent._train()

        return run

    for name in ("palaestra", "palaestra-torch-ops", "palaestra-autograd"):
        if name not in names:
            continue
        agent = train_offpolicy._palaestra_agent(
            "sac", 0, "palaestra", log_interval=10**9, fast_path=name != "palaestra-autograd"
        )
        agent.learn(1000, progress_bar=False)
        if name == "palaestra-torch-ops":  # the hand-written step without the numba loops
            agent._gradients = SACGradients(
                agent.actor, agent.critic, agent.critic_target, compiled=False
            )
        runs[name] = trainer(agent)
    if "sb3" in names:
        model = train_offpolicy._sb3_model("sac", 0)
        model.learn(1000)

        def run_sb3(steps: int) -> None:
            model.train(gradient_steps=steps, batch_size=model.batch_size)

        runs["sb3"] = run_sb3
    return {name: runs[name] for name in names}


def time_alternating(runs: dict, threads: int, steps: int, repeats: int) -> dict:
    """Per-step milliseconds of each run, the runs alternating once per repeat."""
    times: dict[str, list[float]] = {name: [] for name in runs}
    for _ in range(repeats):  # the trainers alternate, so load changes hit all alike
        for name, run in runs.items():
            torch.set_num_threads(threads)
            times[name] += time_per_step(run, steps, 1)
    return times


def time_isolated(threads: int, steps: int, repeats: int, rounds: int) -> dict:
    """Per-step milliseconds, each trainer in a process of its own, processes alternating."""
    import subprocess

    times: dict[str, list[float]] = {name: [] for name in IMPLS}
    per_round = max(1, repeats // rounds)
    for _ in range(rounds):
        for name in IMPLS:
            command = [sys.executable, os.path.abspath(__file__), "--only", name]
            command += ["--threads", str(threads), "--steps", str(steps)]
            command += ["--repeats", str(per_round)]
            output = subprocess.run(command, check=True, capture_output=True, text=True).stdout
            times[name] += json.loads(output.strip().splitlines()[-1])["repeats"]
    return times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--steps", type=int, default=100)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument(
        "--isolated",
        action="store_true",
        help="time each trainer in a process of its own (--rounds rounds of processes)",
    )
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--only", choices=IMPLS, help=argparse.SUPPRESS)  # one child process
    args = parser.parse_args()
    train_offpolicy.TORCH_THREADS = args.threads  # for both libraries' trainers
    torch.set_num_threads(args.threads)
    if args.only:
        runs = build_runs((args.only,))
        values = time_alternating(runs, args.threads, args.steps, args.repeats)[args.only]
        print(json.dumps({"impl": args.only, "repeats": values}), flush=True)
        return
    if args.isolated:
        times = time_isolated(args.threads, args.steps, args.repeats, args.rounds)
    else:
        times = time_alternating(build_runs(IMPLS), args.threads, args.steps, args.repeats)
    results = {}
    for name, values in times.items():
        results[name] = statistics.median(values)
        line = {"kind": "gradient_step", "impl": name, "threads": args.threads}
        line.update(ms=round(results[name], 3), repeats=[round(t, 3) for t in values])
        line["isolated"] = args.isolated
        print(json.dumps(line), flush=True)
    ratios = {
        "kind": "ratios",
        "threads": args.threads,
        "isolated": args.isolated,
        "sb3_over_ceiling": round(results["sb3"] / results["ceiling"], 3),
        "sb3_over_palaestra": round(results["sb3"] / results["palaestra"], 3),
        "sb3_over_palaestra_torch_ops": round(results["sb3"] / results["palaestra-torch-ops"], 3),
        "sb3_over_palaestra_autograd": round(results["sb3"] / results["palaestra-autograd"], 3),
        "palaestra_over_ceiling": round(results["palaestra"] / results["ceiling"], 3),
    }
    print(json.dumps(ratios), flush=True)


if __name__ == "__main__":
    main()
