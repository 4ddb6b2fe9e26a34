"""``palaestra eval``: evaluate a trained agent saved by ``palaestra train``.

Actions are deterministic (the most likely action) by default, as in training's
evaluations; ``--stochastic`` samples them. The printed line names the mode. A run folder
without ``model.pt``, or whose ``model.pt`` is older than its newest checkpoint (a run
killed while saving), evaluates that checkpoint and says so on stderr. Nothing
named in the checkpoint is imported: an env id with a ``module:`` prefix is refused unless
``--allow-import`` is given.

Example:
    >>> import tempfile
    >>> from palaestra.cli import main
    >>> out = tempfile.mkdtemp()
    >>> _ = main(["train", "CartPole-v1", "--steps", "256", "--out", out, "--no-video",
    ...           "--no-progress", "--eval-episodes", "1"])  # doctest: +ELLIPSIS
    trained ...
    >>> main(["eval", out, "--episodes", "3"])  # doctest: +ELLIPSIS
    mean return over 3 episodes (deterministic): ... ± ...
    0
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from palaestra.cli._arguments import positive_int


def add_parser(subparsers: argparse._SubParsersAction) -> argparse.ArgumentParser:
    """Add the ``eval`` subcommand to ``subparsers`` and return its parser."""
    parser = subparsers.add_parser(
        "eval",
        help="evaluate a trained agent",
        description=(
            "Load DIR/model.pt (or its newest checkpoint, or a checkpoint file) written by "
            "`palaestra train`, play episodes with the saved observation normalization and "
            "print mean ± std return. Deterministic actions unless --stochastic."
        ),
    )
    parser.add_argument("path", metavar="DIR", help="a run folder or a checkpoint file")
    parser.add_argument(
        "--episodes", type=positive_int, default=100, metavar="N", help="default: 100"
    )
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument(
        "--deterministic",
        dest="stochastic",
        action="store_false",
        help="take the most likely action (the default)",
    )
    mode.add_argument("--stochastic", action="store_true", help="sample actions")
    parser.set_defaults(stochastic=False)
    parser.add_argument("--seed", type=int, default=10_000, metavar="S", help="default: 10000")
    parser.add_argument(
        "--num-envs", type=positive_int, default=None, metavar="N", help="parallel episodes"
    )
    parser.add_argument(
        "--allow-import",
        action="store_true",
        help="allow a checkpoint's module:Env id to import its module (trusted files only)",
    )
    return parser


def checkpoint_path(path: Path) -> Path:
    """Pick the checkpoint to evaluate: the file, ``DIR/model.pt`` or the newest checkpoint.

    A run folder's newest checkpoint wins (with a line on stderr saying so) when there is
    no ``model.pt`` or when ``model.pt`` holds fewer steps: a run killed while saving its
    final ``model.pt`` keeps the previous one.

    Example:
        >>> checkpoint_path(Path("runs/x/model.pt")).name
        'model.pt'
    """
    from palaestra.train.checkpoint import newest_checkpoint

    if not path.is_dir():
        return path
    model = path / "model.pt"
    newest = newest_checkpoint(path)
    if newest is None:
        return model
    if not model.is_file():
        print(f"no model.pt in {path}; using the newest checkpoint {newest}", file=sys.stderr)
        return newest
    model_steps, newest_steps = _saved_steps(model), int(newest.stem.removeprefix("step_"))
    if model_steps is None or model_steps >= newest_steps:
        return model
    print(
        f"{model} holds step {model_steps}, older than the newest checkpoint {newest} (a "
        "final save was interrupted); using the newest checkpoint",
        file=sys.stderr,
    )
    return newest


def _saved_steps(model: Path) -> int | None:
    """Return the env steps ``model`` was saved at (``None`` if unreadable: loading says why)."""
    from palaestra.train.checkpoint import CheckpointError, load_state

    try:
        return int(load_state(model).get("steps", 0))
    except (CheckpointError, TypeError, ValueError):
        return None


def run(args: argparse.Namespace) -> int:
    """Evaluate as ``args`` asks and print the result; return the exit status."""
    from palaestra.train._torch import require_torch

    require_torch()
    from palaestra.train.checkpoint import load_policy
    from palaestra.train.evaluation import evaluate

    policy = load_policy(checkpoint_path(Path(args.path)), allow_import=args.allow_import)
    envs = policy.make_env(num_envs=args.num_envs or min(args.episodes, 100))
    deterministic = not args.stochastic
    try:
        returns = evaluate(
            policy, envs, episodes=args.episodes, deterministic=deterministic, seed=args.seed
        )
    finally:
        envs.close()
    mode = "deterministic" if deterministic else "stochastic"
    print(
        f"mean return over {args.episodes} episodes ({mode}): "
        f"{returns.mean():.2f} ± {returns.std():.2f}"
    )
    return 0
