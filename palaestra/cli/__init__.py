"""The ``palaestra`` command line: ``palaestra <command> [options]``.

Each command lives in its own module of this package, named in :data:`COMMANDS`. A command
module provides two functions:

- ``add_parser(subparsers)``: add its sub-parser with ``subparsers.add_parser(name, ...)``
  and its options;
- ``run(args) -> int``: carry the command out and return the exit status.

So adding a command is writing ``palaestra/cli/<module>.py`` and appending ``"<module>"`` to
:data:`COMMANDS`. Commands may let :class:`palaestra.error.Error` (and the
:class:`ModuleNotFoundError` of a ``module:Env-v0`` id) propagate: :func:`main` prints its
message (no traceback) and exits with status 2, the status argparse uses for bad arguments.

The working folder is not put on ``sys.path``: a run folder downloaded into it cannot
shadow a module. Module names given on the command line (``module:Env-v0``,
``module:Class``) resolve from ``sys.path``; add folders with ``--import-path DIR``
(``palaestra --import-path . train examples.inventory_env:InventoryTrading-v0``).

Example:
    >>> main(["run", "CartPole-v1", "--episodes", "1", "--seed", "0"])  # doctest: +ELLIPSIS
    episode 1: return=... length=...
    total: ... steps in ... s (... steps/s)
    0
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
from collections.abc import Sequence

from palaestra import error

__all__ = ["COMMANDS", "build_parser", "main"]

COMMANDS: tuple[str, ...] = ("list", "run", "record", "play", "train", "eval", "check", "bench")
"""Modules of :mod:`palaestra.cli` that each add one subcommand."""

USAGE_ERROR = 2


def build_parser() -> argparse.ArgumentParser:
    """Build the argument parser with every command of :data:`COMMANDS` as a subcommand.

    Returns:
        The parser; each subcommand's namespace carries its ``run`` function as ``handler``.

    Example:
        >>> build_parser().parse_args(["list"]).command
        'list'
    """
    from palaestra import __version__

    parser = argparse.ArgumentParser(
        prog="palaestra",
        description="Reinforcement-learning environments that speak the Gymnasium API.",
    )
    parser.add_argument("--version", action="version", version=f"palaestra {__version__}")
    parser.add_argument(
        "--import-path",
        action="append",
        default=[],
        metavar="DIR",
        help="also import modules named on the command line from DIR (repeatable; "
        "the current folder is not searched unless given, e.g. --import-path .)",
    )
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for module_name in COMMANDS:
        command = importlib.import_module(f"{__name__}.{module_name}")
        subparser = command.add_parser(subparsers)
        subparser.set_defaults(handler=command.run)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line with ``argv`` (``sys.argv[1:]`` when ``None``).

    Args:
        argv: the arguments after the program name.

    Returns:
        The exit status: 0 on success, 2 for bad arguments or an unknown environment.

    Example:
        >>> main(["run", "NoSuchEnv-v0"])
        2
    """
    args = build_parser().parse_args(argv)
    for folder in reversed(args.import_path):
        path = os.path.abspath(folder)
        if path not in sys.path:
            sys.path.insert(0, path)
    try:
        return args.handler(args)
    except ModuleNotFoundError as e:
        # A "module:Env-v0" id naming a missing module is a bad argument, not a crash.
        hint = "" if args.import_path else " (to import from this folder, add --import-path .)"
        print(f"palaestra {args.command}: error: {e}{hint}", file=sys.stderr)
        return USAGE_ERROR
    except error.Error as e:
        print(f"palaestra {args.command}: error: {e}", file=sys.stderr)
        return getattr(e, "exit_status", USAGE_ERROR)
