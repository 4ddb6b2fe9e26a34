"""``palaestra train``: train an agent on an environment and write its artifacts.

Writes ``metrics.csv``, checkpoints, ``model.pt`` (with normalization statistics),
``learning_curve.png``, a video of the trained agent and ``summary.json`` into ``--out``.
Needs PyTorch (``pip install torch==2.13.0`` then ``pip install "palaestra[train]"``).

Example:
    >>> import tempfile
    >>> from palaestra.cli import main
    >>> out = tempfile.mkdtemp()
    >>> main(["train", "CartPole-v1", "--steps", "512", "--out", out, "--no-video",
    ...       "--no-progress", "--eval-episodes", "2"])  # doctest: +ELLIPSIS
    trained ppo on CartPole-v1: 512 steps in ... s; evaluation ... ± ... over 2 episodes
    artifacts in ...
    0
"""

from __future__ import annotations

import argparse

from palaestra import error
from palaestra.cli._arguments import positive_int

ALGORITHMS = ("ppo", "reinforce")


def add_parser(subparsers: argparse._SubParsersAction) -> argparse.ArgumentParser:
    """Add the ``train`` subcommand to ``subparsers`` and return its parser."""
    parser = subparsers.add_parser(
        "train",
        help="train an agent (PPO or REINFORCE) on an environment",
        description=(
            "Train an agent on ENV_ID with tuned defaults for the env, evaluate it "
            "periodically (stopping at the env's reward threshold) and write metrics.csv, "
            "checkpoints, model.pt, learning_curve.png and a video into --out."
        ),
    )
    parser.add_argument(
        "env_id", metavar="ENV_ID", help="a registered id, e.g. CartPole-v1 (or module:Env-v0)"
    )
    parser.add_argument("--algo", choices=ALGORITHMS, default="ppo", help="default: ppo")
    parser.add_argument(
        "--steps", type=positive_int, default=None, metavar="N", help="env-step budget"
    )
    parser.add_argument(
        "--num-envs", type=positive_int, default=None, metavar="N", help="PPO sub-envs"
    )
    parser.add_argument("--seed", type=int, default=0, metavar="S", help="default: 0")
    parser.add_argument(
        "--out", default=None, metavar="DIR", help="default: runs/<env>-<algo>-s<seed>"
    )
    parser.add_argument(
        "--device",
        default="cpu",
        help="torch device: cpu (default), cuda or auto (cuda when available)",
    )
    parser.add_argument(
        "--eval-episodes", type=positive_int, default=100, metavar="N", help="default: 100"
    )
    parser.add_argument(
        "--target", type=float, default=None, help="stop once evaluation reaches this return"
    )
    parser.add_argument(
        "--diagnostics",
        action="store_true",
        help="check every step and update for NaN/out-of-space values and exploding gradients",
    )
    parser.add_argument(
        "--step-timeout",
        type=float,
        default=None,
        metavar="SECONDS",
        help="with --diagnostics: fail when one env step takes longer",
    )
    parser.add_argument("--no-video", action="store_true", help="skip the video")
    parser.add_argument("--no-progress", action="store_true", help="hide the progress bar")
    return parser


def run(args: argparse.Namespace) -> int:
    """Train as ``args`` asks and print a summary; return the exit status."""
    from palaestra.train._torch import require_torch

    require_torch()
    from palaestra.train.runner import RunSettings, run_training

    settings = RunSettings(
        env_id=args.env_id,
        algo=args.algo,
        steps=args.steps,
        num_envs=args.num_envs,
        seed=args.seed,
        out=args.out,
        device=args.device,
        eval_episodes=args.eval_episodes,
        target=args.target,
        video=not args.no_video,
        progress=not args.no_progress,
        overrides=(
            {"diagnostics": True, "step_timeout": args.step_timeout} if args.diagnostics else {}
        ),
    )
    try:
        summary = run_training(settings)
    except ValueError as exc:  # bad settings (device, spaces, ...) are usage errors
        raise error.Error(str(exc)) from exc
    print(
        f"trained {summary['algo']} on {summary['env_id']}: {summary['steps']} steps in "
        f"{summary['train_seconds']:.1f} s; evaluation {summary['eval_mean']:.2f} ± "
        f"{summary['eval_std']:.2f} over {summary['eval_episodes']} episodes"
    )
    print(f"artifacts in {settings.output_folder()}")
    return 0
