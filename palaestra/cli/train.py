"""``palaestra train``: train an agent on an environment and write its artifacts.

Writes ``settings.json``, ``metrics.csv`` and TensorBoard logs, checkpoints, ``model.pt``
(with normalization statistics), ``learning_curve.png``, a video of the trained agent and
``summary.json`` into ``--out``. Hyper-parameters start from the env's preset (the same the
Python API uses); ``--config FILE`` (TOML or JSON: a table of hyper-parameters, data only)
and ``--set key=value`` override them, in that order. ``--resume DIR`` continues a run;
its ``settings.json`` is data: an env id that needs an import (``module:Env-v0``) is
refused unless ``--allow-import`` is given.
Needs PyTorch (``pip install torch==2.13.0`` then ``pip install "palaestra[train]"``).

Example:
    >>> import tempfile
    >>> from palaestra.cli import main
    >>> out = tempfile.mkdtemp()
    >>> main(["train", "CartPole-v1", "--steps", "512", "--out", out, "--no-video",
    ...       "--no-progress", "--eval-episodes", "2"])  # doctest: +ELLIPSIS
    trained ppo on CartPole-v1: 512 steps in ... s; evaluation (deterministic) ... over 2 episodes
    artifacts in ...
    0
"""

from __future__ import annotations

import argparse
import json
import math
from pathlib import Path
from typing import Any

from palaestra import error
from palaestra.cli._arguments import positive_float, positive_int
from palaestra.train.core import registry

ALGORITHMS = registry.names()
"""The algorithms registered when the command line was imported (``--algo`` takes these)."""
INTERRUPTED = 130
STARTUP_INTERRUPTED = (
    "interrupted during start-up, before training began; no checkpoint was written."
)


def _key_value(text: str) -> tuple[str, Any]:
    key, separator, raw = text.partition("=")
    if not separator or not key.strip():
        raise argparse.ArgumentTypeError(f"expected key=value, got {text!r}")
    return key.strip(), parse_value(raw.strip())


def parse_value(text: str) -> Any:
    """Parse a ``--set`` value: JSON when it parses (numbers, booleans, lists), else text.

    ``true``/``false``/``none`` are accepted in any case.

    Example:
        >>> parse_value("3e-4"), parse_value("True"), parse_value("[64, 64]"), parse_value("auto")
        (0.0003, True, [64, 64], 'auto')
    """
    lowered = text.lower()
    if lowered in ("true", "false"):
        return lowered == "true"
    if lowered in ("none", "null"):
        return None
    try:
        return json.loads(text)
    except ValueError:
        return text


def load_config_file(path: str) -> dict[str, Any]:
    r"""Read a hyper-parameter table from a TOML or JSON file (data only, nothing executed).

    A TOML file may put the table at the top level or under ``[hyperparameters]``.

    Raises:
        palaestra.error.Error: if the file is missing, unparsable or not a flat table.

    Example:
        >>> import tempfile, pathlib
        >>> path = pathlib.Path(tempfile.mkdtemp()) / "ppo.toml"
        >>> _ = path.write_text("n_steps = 64\nlearning_rate = 1e-3\n")
        >>> load_config_file(str(path))
        {'n_steps': 64, 'learning_rate': 0.001}
    """
    file = Path(path)
    try:
        text = file.read_text()
    except OSError as exc:
        raise error.Error(f"cannot read config file {path!r}: {exc.strerror or exc}.") from None
    try:
        if file.suffix.lower() == ".json":
            data = json.loads(text)
        else:
            import tomllib

            data = tomllib.loads(text)
    except ValueError as exc:
        kind = "JSON" if file.suffix.lower() == ".json" else "TOML"
        raise error.Error(f"config file {path!r} is not valid {kind}: {exc}.") from None
    if isinstance(data, dict) and isinstance(data.get("hyperparameters"), dict):
        data = data["hyperparameters"]
    if not isinstance(data, dict) or any(isinstance(v, dict) for v in data.values()):
        raise error.Error(
            f"config file {path!r} must hold one table of hyper-parameters (key = value)."
        )
    return data


def add_parser(subparsers: argparse._SubParsersAction) -> argparse.ArgumentParser:
    """Add the ``train`` subcommand to ``subparsers`` and return its parser."""
    parser = subparsers.add_parser(
        "train",
        help="train an agent (PPO, DQN, SAC or REINFORCE) on an environment",
        description=(
            "Train an agent on ENV_ID with tuned defaults for the env, evaluate it "
            "periodically with deterministic actions (stopping at the env's reward "
            "threshold) and write metrics.csv, TensorBoard logs, checkpoints, model.pt, "
            "learning_curve.png and a video into --out."
        ),
    )
    parser.add_argument(
        "env_id",
        metavar="ENV_ID",
        nargs="?",
        help="a registered id, e.g. CartPole-v1 (or module:Env-v0); not with --resume",
    )
    parser.add_argument("--algo", choices=registry.names(), default="ppo", help="default: ppo")
    parser.add_argument(
        "--steps", type=positive_int, default=None, metavar="N", help="env-step budget"
    )
    parser.add_argument("--num-envs", type=positive_int, default=None, metavar="N", help="sub-envs")
    parser.add_argument("--seed", type=int, default=0, metavar="S", help="default: 0")
    parser.add_argument(
        "--out", default=None, metavar="DIR", help="default: runs/<env>-<algo>-s<seed>"
    )
    parser.add_argument("--overwrite", action="store_true", help="replace the run already in --out")
    parser.add_argument(
        "--resume", metavar="DIR", default=None, help="continue the run in DIR to its budget"
    )
    parser.add_argument(
        "--allow-import",
        action="store_true",
        help="with --resume: allow the run's module:Env id to import its module "
        "(trusted run folders only)",
    )
    parser.add_argument(
        "--device",
        default="cpu",
        help="torch device: cpu (default), cuda, cuda:N, mps or auto (cuda when available)",
    )
    parser.add_argument(
        "--set",
        dest="overrides",
        action="append",
        type=_key_value,
        default=[],
        metavar="KEY=VALUE",
        help="override one hyper-parameter, e.g. --set learning_rate=3e-4 (repeatable)",
    )
    parser.add_argument(
        "--config", metavar="FILE", default=None, help="hyper-parameters from a TOML/JSON file"
    )
    parser.add_argument(
        "--eval-episodes", type=positive_int, default=100, metavar="N", help="default: 100"
    )
    parser.add_argument(
        "--eval-every", type=positive_int, default=None, metavar="N", help="env steps"
    )
    parser.add_argument(
        "--target", type=float, default=None, help="stop once evaluation reaches this return"
    )
    parser.add_argument(
        "--checkpoint-every",
        type=positive_int,
        default=None,
        metavar="STEPS",
        help="env steps between checkpoints (default: a fifth of the budget)",
    )
    parser.add_argument(
        "--checkpoint-minutes",
        type=positive_float,
        default=None,
        metavar="M",
        help="also checkpoint after every M minutes of training (default: 10)",
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
        help="fail when one env step (training or evaluation) takes longer",
    )
    parser.add_argument(
        "--no-check-finite",
        action="store_true",
        help="keep training through non-finite rewards, losses or gradients",
    )
    parser.add_argument("--no-video", action="store_true", help="skip the video")
    parser.add_argument("--no-tensorboard", action="store_true", help="skip TensorBoard logs")
    parser.add_argument("--no-progress", action="store_true", help="hide the progress bar")
    return parser


def _overrides(args: argparse.Namespace) -> dict[str, Any]:
    overrides: dict[str, Any] = {}
    if args.config:
        overrides.update(load_config_file(args.config))
    overrides.update(dict(args.overrides))
    if args.diagnostics:
        overrides["diagnostics"] = True
    if args.step_timeout is not None:
        if not args.step_timeout > 0:
            raise error.Error(f"--step-timeout must be positive, got {args.step_timeout}.")
        overrides["step_timeout"] = args.step_timeout
    if args.no_check_finite:
        overrides["check_finite"] = False
    if isinstance(overrides.get("hidden_sizes"), list):
        overrides["hidden_sizes"] = tuple(overrides["hidden_sizes"])
    return overrides


def run(args: argparse.Namespace) -> int:
    """Train as ``args`` asks and print a summary; return the exit status.

    A Ctrl-C prints one line (no traceback) and returns 130, also during start-up.
    """
    try:
        return _train(args)
    except KeyboardInterrupt:  # training and after end with RunInterrupted: this is start-up
        print(f"palaestra train: {STARTUP_INTERRUPTED}")
        return INTERRUPTED


def _train(args: argparse.Namespace) -> int:
    from palaestra.train._torch import require_torch

    require_torch()
    from palaestra.train.ppo import resolve_device
    from palaestra.train.runner import (
        RunInterrupted,
        RunSettings,
        config_fields,
        resume_settings,
        run_training,
    )

    try:
        resolve_device(args.device)
    except ValueError as exc:
        raise error.Error(f"--device: {exc}") from None
    if args.resume:
        if args.env_id:
            raise error.Error("pass either ENV_ID or --resume DIR, not both.")
        settings = resume_settings(args.resume, allow_import=args.allow_import)
        settings.progress = not args.no_progress
        if args.steps:
            settings.steps = args.steps
        _set_checkpointing(settings, args)
    else:
        if not args.env_id:
            raise error.Error("ENV_ID is required (or --resume DIR).")
        overrides = _overrides(args)
        valid = config_fields(args.algo)
        unknown = sorted(set(overrides) - set(valid))
        if unknown:
            raise error.Error(
                f"unknown {args.algo} hyper-parameter(s) {unknown}; valid: {', '.join(valid)}."
            )
        settings = RunSettings(
            env_id=args.env_id,
            algo=args.algo,
            steps=args.steps,
            num_envs=args.num_envs,
            seed=args.seed,
            out=args.out,
            device=args.device,
            eval_episodes=args.eval_episodes,
            eval_every=args.eval_every,
            target=args.target,
            video=not args.no_video,
            progress=not args.no_progress,
            tensorboard=not args.no_tensorboard,
            overwrite=args.overwrite,
            overrides=overrides,
        )
        _set_checkpointing(settings, args)
    try:
        summary = run_training(settings, resume=bool(args.resume))
    except RunInterrupted as exc:
        print(f"palaestra train: {exc}")
        return INTERRUPTED
    except (ValueError, TypeError) as exc:  # bad settings (spaces, values, ...) are usage errors
        raise error.Error(str(exc).splitlines()[0]) from exc
    mean, std = summary["eval_mean"], summary["eval_std"]
    print(
        f"trained {summary['algo']} on {summary['env_id']}: {summary['steps']} steps in "
        f"{summary['train_seconds']:.1f} s; evaluation ({summary['eval_mode']}) "
        f"{_number(mean)} ± {_number(std)} over {summary['eval_episodes']} episodes"
    )
    print(f"artifacts in {settings.output_folder()}")
    return 0


def _set_checkpointing(settings: Any, args: argparse.Namespace) -> None:
    if args.checkpoint_every is not None:
        settings.checkpoint_every = args.checkpoint_every
    if args.checkpoint_minutes is not None:
        settings.checkpoint_minutes = args.checkpoint_minutes


def _number(value: float | None) -> str:
    return "n/a" if value is None or not math.isfinite(value) else f"{value:.2f}"
