"""``palaestra play``: play an environment from the keyboard in a window.

Works for environments with default keys (the classic-control ids, or any env defining
``get_keys_to_action``); the controls are printed before the window opens. Close the window
or press Escape to stop.

Example:
    >>> from palaestra.cli import build_parser
    >>> args = build_parser().parse_args(["play", "CartPole-v1", "--zoom", "1.5"])
    >>> args.env_id, args.zoom, args.fps
    ('CartPole-v1', 1.5, None)
"""

from __future__ import annotations

import argparse
import os
import sys
import warnings
from typing import Any

from palaestra import error
from palaestra.core import Env
from palaestra.envs.registration import make
from palaestra.utils import play as play_utils

__all__ = ["add_parser", "run", "describe_controls", "display_problem"]


def _positive_float(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = 0.0
    if not value > 0:
        raise argparse.ArgumentTypeError(f"expected a positive number, got {text!r}")
    return value


def add_parser(subparsers: argparse._SubParsersAction) -> argparse.ArgumentParser:
    """Add the ``play`` subcommand to ``subparsers`` and return its parser."""
    parser = subparsers.add_parser(
        "play",
        help="play an environment from the keyboard",
        description=(
            "Open ENV_ID in a window and play it with the keyboard (environments with default "
            "keys only: " + ", ".join(sorted(play_utils.DEFAULT_KEYS_TO_ACTION)) + "). "
            "Escape or closing the window quits."
        ),
    )
    parser.add_argument("env_id", metavar="ENV_ID", help="a registered id, e.g. MountainCar-v0")
    parser.add_argument(
        "--fps", type=_positive_float, default=None, help="steps per second (default: render_fps)"
    )
    parser.add_argument(
        "--zoom", type=_positive_float, default=None, help="window scale factor (default: 1)"
    )
    parser.add_argument("--seed", type=int, default=None, metavar="S", help="seed of every reset")
    return parser


def _key_name(code: int) -> str:
    import pygame

    return pygame.key.name(code) or str(code)


def describe_controls(keys_to_action: dict[tuple[int, ...], Any]) -> list[str]:
    """Describe each key combination and its action, one line each, for the player.

    Args:
        keys_to_action: key-code tuples -> action, as ``play`` takes them.

    Example:
        >>> describe_controls({(): 1, (97, 100): 2})
        ['no key: action 1', 'a+d: action 2']
    """
    lines = []
    for keys, action in keys_to_action.items():
        shown = "+".join(_key_name(code) for code in keys) if keys else "no key"
        lines.append(f"{shown}: action {action}")
    return lines


def _make_playable_env(env_id: str) -> tuple[Env, dict]:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        env = make(env_id, render_mode="rgb_array")
    try:
        return env, play_utils.default_keys_to_action(env)
    except (play_utils.MissingKeysToAction, ValueError) as e:
        env.close()
        known = ", ".join(sorted(play_utils.DEFAULT_KEYS_TO_ACTION))
        raise error.Error(
            f"{env_id} has no default keys, so it cannot be played from the command line "
            f"(playable: {known}; in Python, pass keys_to_action to palaestra.utils.play.play)"
        ) from e


def display_problem(
    environ: dict[str, str] | None = None, platform: str | None = None
) -> str | None:
    """Explain why no window can open here, or return ``None`` when a display looks available.

    On Linux and the BSDs a window needs ``DISPLAY`` (X11) or ``WAYLAND_DISPLAY``; SDL's
    ``dummy``/``offscreen`` video drivers never show one. Other systems always have one.

    Example:
        >>> display_problem({}, "linux")
        'no display: neither DISPLAY nor WAYLAND_DISPLAY is set'
        >>> display_problem({"DISPLAY": ":0"}, "linux") is None
        True
    """
    environ = dict(os.environ) if environ is None else environ
    platform = sys.platform if platform is None else platform
    driver = environ.get("SDL_VIDEODRIVER", "")
    if driver in ("dummy", "offscreen"):
        return f"SDL_VIDEODRIVER={driver} shows no window"
    unix = platform.startswith(("linux", "freebsd", "openbsd", "netbsd"))
    if unix and not (environ.get("DISPLAY") or environ.get("WAYLAND_DISPLAY")):
        return "no display: neither DISPLAY nor WAYLAND_DISPLAY is set"
    return None


def run(args: argparse.Namespace) -> int:
    """Play ``args.env_id`` until the window is closed; return exit status 0.

    Raises:
        palaestra.error.Error: at once when no window can be shown (see
            :func:`display_problem`) or the env has no default keys.
    """
    problem = display_problem()
    if problem is not None:
        raise error.Error(
            f"cannot play {args.env_id}: {problem}. Run it in a desktop session, or save a "
            f"video instead: palaestra record {args.env_id}"
        )
    env, keys_to_action = _make_playable_env(args.env_id)
    print(f"Playing {args.env_id}; Escape or closing the window quits.")
    for line in describe_controls(keys_to_action):
        print(f"  {line}")
    try:
        play_utils.play(
            env,
            fps=args.fps,
            zoom=args.zoom,
            seed=args.seed,
            keys_to_action=keys_to_action,
        )
    finally:
        env.close()
    return 0
