"""``palaestra eval``: evaluate a trained agent saved by ``palaestra train``.

Example:
    >>> import tempfile
    >>> from palaestra.cli import main
    >>> out = tempfile.mkdtemp()
    >>> _ = main(["train", "CartPole-v1", "--steps", "256", "--out", out, "--no-video",
    ...           "--no-progress", "--eval-episodes", "1"])  # doctest: +ELLIPSIS
    trained ...
    >>> main(["eval", out, "--episodes", "3", "--deterministic"])  # doctest: +ELLIPSIS
    mean return over 3 episodes: ... ± ...
    0
"""

from __future__ import annotations

import argparse
from pathlib import Path

from palaestra.cli._arguments import positive_int


def add_parser(subparsers: argparse._SubParsersAction) -> argparse.ArgumentParser:
    """Add the ``eval`` subcommand to ``subparsers`` and return its parser."""
    parser = subparsers.add_parser(
        "eval",
        help="evaluate a trained agent",
        description=(
            "Load DIR/model.pt (or a checkpoint file) written by `palaestra train`, play "
            "episodes with the saved observation normalization and print mean ± std return."
        ),
    )
    parser.add_argument("path", metavar="DIR", help="a run folder or a checkpoint file")
    parser.add_argument(
        "--episodes", type=positive_int, default=100, metavar="N", help="default: 100"
    )
    parser.add_argument("--deterministic", action="store_true", help="take the most likely action")
    parser.add_argument("--seed", type=int, default=10_000, metavar="S", help="default: 10000")
    parser.add_argument(
        "--num-envs", type=positive_int, default=None, metavar="N", help="parallel episodes"
    )
    return parser


def run(args: argparse.Namespace) -> int:
    """Evaluate as ``args`` asks and print the result; return the exit status."""
    from palaestra import error
    from palaestra.train._torch import require_torch

    require_torch()
    from palaestra.train.checkpoint import load_policy
    from palaestra.train.evaluation import evaluate

    path = Path(args.path)
    model = path / "model.pt" if path.is_dir() else path
    try:
        policy = load_policy(model)
    except FileNotFoundError as exc:
        raise error.Error(str(exc)) from exc
    envs = policy.make_env(num_envs=args.num_envs or min(args.episodes, 100))
    try:
        returns = evaluate(
            policy, envs, episodes=args.episodes, deterministic=args.deterministic, seed=args.seed
        )
    finally:
        envs.close()
    print(f"mean return over {args.episodes} episodes: {returns.mean():.2f} ± {returns.std():.2f}")
    return 0
