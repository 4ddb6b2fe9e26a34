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
    trained ppo on CartPole-v1: 512 steps in ... s (+ ... s evaluating); final evaluation ...
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
from palaestra.cli._arguments import folder_path, positive_float, positive_int
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
            "periodically on a few episodes, stop once the env's reward threshold is "
            "reached with deterministic and with sampled actions (and confirmed over "
            "--eval-episodes episodes), and write metrics.csv, TensorBoard logs, "
            "checkpoints, model.pt, best_model.pt, learning_curve.png and a video "
            "into --out."
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
        "--steps",
        type=positive_int,
        default=None,
        metavar="N",
        help="env-step budget (PPO: rounded up to whole rollouts)",
    )
    parser.add_argument("--num-envs", type=positive_int, default=None, metavar="N", help="sub-envs")
    parser.add_argument("--seed", type=int, default=0, metavar="S", help="default: 0")
    parser.add_argument(
        "--out",
        type=folder_path,
        default=None,
        metavar="DIR",
        help="default: runs/<env>-<algo>-s<seed>",
    )
    parser.add_argument("--overwrite", action="store_true", help="replace the run already in --out")
    parser.add_argument(
        "--resume",
        type=folder_path,
        metavar="DIR",
        default=None,
        help="continue the run in DIR to its budget",
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
        "--eval-episodes",
        type=positive_int,
        default=100,
        metavar="N",
        help="episodes of the final evaluation (default: 100)",
    )
    parser.add_argument(
        "--periodic-eval-episodes",
        type=positive_int,
        default=10,
        metavar="N",
        help="episodes of each periodic evaluation, played at once (default: 10)",
    )
    parser.add_argument(
        "--eval-every", type=positive_int, default=None, metavar="N", help="env steps"
    )
    parser.add_argument(
        "--target",
        type=float,
        default=None,
        help="stop once evaluations reach this mean return (default: the env's threshold)",
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
            periodic_eval_episodes=args.periodic_eval_episodes,
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
    except ModuleNotFoundError as exc:
        raise _missing_dependency(settings.env_id, exc) from None
    except (ValueError, TypeError) as exc:  # bad settings (spaces, values, ...) are usage errors
        raise error.Error(str(exc).splitlines()[0]) from exc
    print(summary_line(summary))
    print(f"artifacts in {settings.output_folder()}")
    return 0


def summary_line(summary: dict[str, Any]) -> str:
    """Return the line ``palaestra train`` prints for a finished run's summary.

    The time is this command's training time (its evaluations apart), so a resumed run
    names the steps it took itself beside the run's total.

    Example:
        >>> summary = {"algo": "ppo", "env_id": "CartPole-v1", "steps": 2048,
        ...            "start_step": 1024, "seconds": {"training": 0.5, "evaluation": 0.25},
        ...            "eval_mode": "deterministic", "eval_mean": 500.0, "eval_std": 0.0,
        ...            "eval_episodes": 100, "reached_target": False}
        >>> print(summary_line(summary))  # doctest: +NORMALIZE_WHITESPACE
        trained ppo on CartPole-v1: 1024 steps (1024 to 2048, resumed) in 0.5 s
        (+ 0.2 s evaluating); final evaluation (deterministic) 500.00 ± 0.00 over 100 episodes
    """
    seconds = summary["seconds"]
    start, steps = summary.get("start_step", 0), summary["steps"]
    taken = f"{steps - start} steps ({start} to {steps}, resumed)" if start else f"{steps} steps"
    stopped = "; target reached" if summary.get("reached_target") else ""
    return (
        f"trained {summary['algo']} on {summary['env_id']}: {taken} in "
        f"{seconds['training']:.1f} s (+ {seconds['evaluation']:.1f} s evaluating){stopped}; "
        f"final evaluation ({summary['eval_mode']}) {_number(summary['eval_mean'])} ± "
        f"{_number(summary['eval_std'])} over {summary['eval_episodes']} episodes"
    )


_EXTRAS = {"mujoco": "mujoco", "ale_py": "atari", "Box2D": "box2d", "pygame": "classic-control"}
"""Modules an env family needs -> the palaestra extra that installs them."""


def _missing_dependency(env_id: str, exc: ModuleNotFoundError) -> Exception:
    """Turn a module the env needs but cannot import into one line naming the install.

    The module of a ``module:Env-v0`` id is the user's own: that error stays as it is (the
    command line then suggests ``--import-path``).
    """
    missing = (exc.name or "").split(".")[0]
    own = env_id.split(":", 1)[0] if ":" in env_id else None
    if own is not None and missing == own.split(".")[0]:
        return exc
    extra = _EXTRAS.get(missing)
    install = f'pip install "palaestra[{extra}]"' if extra else f"pip install {missing}"
    return error.DependencyNotInstalled(
        f"{env_id} needs the Python package {missing!r}, which is not installed; run `{install}`."
    )


def _set_checkpointing(settings: Any, args: argparse.Namespace) -> None:
    if args.checkpoint_every is not None:
        settings.checkpoint_every = args.checkpoint_every
    if args.checkpoint_minutes is not None:
        settings.checkpoint_minutes = args.checkpoint_minutes


def _number(value: float | None) -> str:
    return "n/a" if value is None or not math.isfinite(value) else f"{value:.2f}"
