"""Gymnasium's raise and warn sites, and which of them a set of cases reaches.

``gymnasium_sites`` lists every ``raise``, ``assert ..., msg`` and ``logger.warn`` / ``warn`` /
``logger.deprecation`` / ``logger.error`` / ``warnings.warn`` call in the modules the harness
covers, as ``"path:line"`` (path relative to the gymnasium package). ``reached_sites`` runs cases
against Gymnasium under a trace function and reports the sites that fired: a raise or assert
site fired when an exception was raised on one of its lines, a warn site when one of its lines
ran.
"""

from __future__ import annotations

import ast
import contextlib
import sys
import warnings
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from types import FrameType, ModuleType

from tests.errors.harness import Misuse

MODULES = (
    "spaces/box.py",
    "spaces/dict.py",
    "spaces/discrete.py",
    "spaces/graph.py",
    "spaces/multi_binary.py",
    "spaces/multi_discrete.py",
    "spaces/oneof.py",
    "spaces/sequence.py",
    "spaces/space.py",
    "spaces/text.py",
    "spaces/tuple.py",
    "spaces/utils.py",
    "envs/registration.py",
    "utils/env_checker.py",
    "utils/passive_env_checker.py",
    "vector/utils/shared_memory.py",
    "vector/utils/space_utils.py",
    "vector/vector_env.py",
    "vector/sync_vector_env.py",
    "vector/async_vector_env.py",
    "wrappers/__init__.py",
    "wrappers/vector/__init__.py",
    "wrappers/vector/dict_info_to_list.py",
)

_WARN_CALLS = {
    "logger.warn",
    "logger.deprecation",
    "logger.error",
    "gym.logger.warn",
    "warnings.warn",
    "warn",  # registration.py: `from gymnasium.logger import warn`
}


@dataclass(frozen=True)
class Site:
    """One raise/warn statement: where it is, its line span and whether it warns."""

    path: str
    first: int
    last: int
    warns: bool

    @property
    def name(self) -> str:
        return f"{self.path}:{self.first}"


def gymnasium_root(gymnasium: ModuleType) -> Path:
    """The directory of the installed gymnasium package."""
    return Path(gymnasium.__file__).parent


def gymnasium_sites(gymnasium: ModuleType) -> list[Site]:
    """Every raise/assert-with-message/warn site in ``MODULES``, in file order."""
    root = gymnasium_root(gymnasium)
    sites = []
    for path in MODULES:
        tree = ast.parse((root / path).read_text())
        for node in ast.walk(tree):
            if isinstance(node, ast.Raise) or (isinstance(node, ast.Assert) and node.msg):
                sites.append(Site(path, node.lineno, node.end_lineno or node.lineno, False))
            elif isinstance(node, ast.Call) and ast.unparse(node.func) in _WARN_CALLS:
                sites.append(Site(path, node.lineno, node.end_lineno or node.lineno, True))
    return sorted(sites, key=lambda s: (s.path, s.first))


def reached_sites(gymnasium: ModuleType, cases: Iterable[Misuse]) -> set[str]:
    """Run every case against ``gymnasium`` under a tracer; the names of the sites it fired."""
    root = str(gymnasium_root(gymnasium)) + "/"
    ran: set[tuple[str, int]] = set()
    raised: set[tuple[str, int]] = set()

    def local(frame: FrameType, event: str, arg: object):
        where = (frame.f_code.co_filename[len(root) :], frame.f_lineno)
        if event == "line":
            ran.add(where)
        elif event == "exception":
            raised.add(where)
        return local

    def on_call(frame: FrameType, event: str, arg: object):
        return local if frame.f_code.co_filename.startswith(root) else None

    previous = sys.gettrace()
    sys.settrace(on_call)
    try:
        for case in cases:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                with contextlib.suppress(Exception):  # only the trace matters here
                    case(gymnasium)
    finally:
        sys.settrace(previous)
    reached = set()
    for site in gymnasium_sites(gymnasium):
        fired = ran if site.warns else raised
        if any((site.path, line) in fired for line in range(site.first, site.last + 1)):
            reached.add(site.name)
    return reached
