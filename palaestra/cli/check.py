"""``palaestra check``: validate an environment class against the API.

The target is ``module:Class`` (the module is imported, e.g. ``examples.inventory_env``),
``path/to/file.py:Class`` (the file is loaded by path) or a registered env id. The class is
built without arguments and checked with :func:`palaestra.utils.env_checker.check_env`;
warnings are printed, failed checks are listed, and the exit status is 1 when a check
fails.

Example:
    >>> from palaestra.cli import main
    >>> main(["check", "palaestra.envs.classic_control.cartpole:CartPoleEnv"])
    warning: ...
    OK: palaestra.envs.classic_control.cartpole:CartPoleEnv follows the palaestra API
    0
"""

from __future__ import annotations

import argparse
import dataclasses
import importlib
import importlib.util
import os
import re
import sys
import warnings
from pathlib import Path
from typing import Any

from palaestra import error

PROBLEMS_FOUND = 1


def add_parser(subparsers: argparse._SubParsersAction) -> argparse.ArgumentParser:
    """Add the ``check`` subcommand to ``subparsers`` and return its parser."""
    parser = subparsers.add_parser(
        "check",
        help="validate an environment against the API",
        description=(
            "Build TARGET (module:Class, path/to/file.py:Class or a registered env id) and "
            "run the env checker on it; print OK or the problems found."
        ),
    )
    parser.add_argument("target", metavar="TARGET", help="e.g. examples.inventory_env:InventoryEnv")
    parser.add_argument("--skip-render", action="store_true", help="skip the render-mode checks")
    return parser


def load_env(target: str) -> Any:
    """Build the env named by ``target`` (see the module docstring).

    Raises:
        palaestra.error.Error: if the module, file or class cannot be found, or the class
            cannot be built without arguments.

    Example:
        >>> type(load_env("palaestra.envs.classic_control.cartpole:CartPoleEnv")).__name__
        'CartPoleEnv'
    """
    if ":" not in target or target.endswith(":"):
        from palaestra import make

        return make(target).unwrapped
    location, class_name = target.rsplit(":", 1)
    module = _load_module(location)
    if not hasattr(module, class_name):
        missing = error.Error(
            f"{location!r} has no attribute {class_name!r}; expected module:Class."
        )
        if location.endswith(".py"):  # a file path is no module a registered id can name
            raise missing
        from palaestra import make

        try:
            return make(target).unwrapped
        except (error.Error, ImportError):
            raise missing from None
    env_class = getattr(module, class_name)
    try:
        return env_class()
    except TypeError as exc:
        raise error.Error(
            f"Cannot build {target} without arguments ({exc}); give its parameters defaults."
        ) from exc


def _load_module(location: str) -> Any:
    if location.endswith(".py"):
        path = Path(location)
        if not path.is_file():
            raise error.Error(f"No such file: {location!r}.")
        loaded = _module_from_file(path)
        if loaded is not None:
            return loaded
        spec = importlib.util.spec_from_file_location(path.stem, path)
        module = importlib.util.module_from_spec(spec)
        sys.modules[path.stem] = module
        spec.loader.exec_module(module)
        return module
    try:
        return importlib.import_module(location)
    except ImportError as exc:
        raise error.Error(
            f"Cannot import module {location!r} ({exc}); add the folder that contains it "
            "with --import-path DIR (e.g. palaestra --import-path . check ...), or pass "
            "path/to/file.py:Class."
        ) from exc


def _module_from_file(path: Path) -> Any:
    """Find the already imported module loaded from ``path``, so it is not run twice."""
    wanted = path.resolve()
    for module in list(sys.modules.values()):
        file = getattr(module, "__file__", None)
        if file is not None and Path(file).resolve() == wanted:
            return module
    return None


@dataclasses.dataclass
class CheckReport:
    """What the env checker found.

    Attributes:
        errors: failed checks (the env breaks the API).
        warnings: checker warnings (legal but suspicious, e.g. infinite bounds).
    """

    errors: list[str]
    warnings: list[str]


def find_problems(env: Any, skip_render: bool = False) -> CheckReport:
    """Run the env checker on ``env`` and collect its failures and warnings.

    Example:
        >>> import palaestra as gym
        >>> report = find_problems(gym.make("CartPole-v1").unwrapped, skip_render=True)
        >>> report.errors, len(report.warnings)
        ([], 2)
    """
    from palaestra.utils.env_checker import check_env

    errors: list[str] = []
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            check_env(env, skip_render_check=skip_render)
        except Exception as exc:  # every failed check is reported, whatever its type
            errors.append(f"{type(exc).__name__}: {_plain(str(exc))}")
    return CheckReport(errors, [_plain(str(w.message)) for w in caught])


def _plain(text: str) -> str:
    """Drop terminal colour codes."""
    return re.sub(r"\x1b\[[0-9;]*m", "", text)


def quiet_headless_sdl() -> None:
    """Without a display, point SDL (pygame) at its dummy drivers before it is loaded.

    Rendering checks then draw off screen instead of SDL printing errors such as
    ``XDG_RUNTIME_DIR is invalid`` to the terminal. Settings already made are kept.

    Example:
        >>> quiet_headless_sdl()
    """
    from palaestra.cli.play import display_problem

    if display_problem() is not None:
        os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
        os.environ.setdefault("SDL_AUDIODRIVER", "dummy")
    os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")


def without_window_modes(env: Any, no_window: str | None) -> list[str]:
    """Leave ``render_mode="human"`` out of the render checks of ``env`` when no window can open.

    ``human`` draws into a window; where ``no_window`` says why there is none (see
    :func:`palaestra.cli.play.display_problem`), checking it can only fail, so the checked
    env instance lists its other modes only. Returns the modes left out.

    Example:
        >>> import palaestra as gym
        >>> env = gym.make("CartPole-v1").unwrapped
        >>> without_window_modes(env, "no display"), env.metadata["render_modes"]
        (['human'], ['rgb_array'])
        >>> without_window_modes(gym.make("CartPole-v1").unwrapped, None)
        []
    """
    modes = list(getattr(env, "metadata", {}).get("render_modes", []))
    if no_window is None or "human" not in modes:
        return []
    env.metadata = {**env.metadata, "render_modes": [mode for mode in modes if mode != "human"]}
    return ["human"]


def run(args: argparse.Namespace) -> int:
    """Check the env named by ``args.target``; return 0 when it passes, 1 otherwise."""
    from palaestra.cli.play import display_problem

    no_window = display_problem()  # read before SDL is pointed at its dummy (windowless) driver
    quiet_headless_sdl()
    env = load_env(args.target)
    skipped = [] if args.skip_render else without_window_modes(env, no_window)
    try:
        report = find_problems(env, skip_render=args.skip_render)
    finally:
        env.close()
    for message in report.warnings:
        print(f"warning: {message}")
    for mode in skipped:
        print(
            f"skipped: render_mode={mode!r} needs a window and this machine has none "
            f"({no_window}); run under a display (e.g. `xvfb-run`) to check it"
        )
    if not report.errors:
        print(f"OK: {args.target} follows the palaestra API")
        return 0
    print(f"{len(report.errors)} problem(s) found in {args.target}:")
    for problem in report.errors:
        print(f"- {problem}")
    return PROBLEMS_FOUND
