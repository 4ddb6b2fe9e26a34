"""``palaestra list``: the registered environments, grouped by namespace.

Example:
    >>> from palaestra.cli import main
    >>> main(["list", "--num-cols", "1"])  # doctest: +ELLIPSIS
    ===== ...
    CartPole-v1
    ...
    0
"""

from __future__ import annotations

import argparse

from palaestra.cli._arguments import positive_int
from palaestra.envs.registration import pprint_registry


def add_parser(subparsers: argparse._SubParsersAction) -> argparse.ArgumentParser:
    """Add the ``list`` subcommand to ``subparsers`` and return its parser."""
    parser = subparsers.add_parser(
        "list",
        help="list the registered environments",
        description="List the registered environment ids, grouped by namespace.",
    )
    parser.add_argument(
        "--num-cols", type=positive_int, default=3, metavar="N", help="ids per row (default: 3)"
    )
    parser.add_argument(
        "--exclude",
        action="append",
        default=None,
        metavar="NAMESPACE",
        help="leave out a namespace (repeatable)",
    )
    return parser


def run(args: argparse.Namespace) -> int:
    """Print the registry and return exit status 0."""
    pprint_registry(num_cols=args.num_cols, exclude_namespaces=args.exclude)
    return 0
