"""The differential error-path harness: one misuse, run against Gymnasium and palaestra.

A *case* is a function ``misuse(gym)`` taking the framework module (``gymnasium`` or
``palaestra``) and performing exactly one misuse through its public API. ``run_case`` records
what the call raised and warned; ``compare`` says how palaestra's outcome differs from
Gymnasium's (an empty list means they agree).

Agreement means: the same exception type (palaestra may raise a subclass of it), the same
warning categories (one palaestra warning per Gymnasium warning, none extra), and every
palaestra message CONTAINS Gymnasium's text after ``normalise`` (palaestra may add guidance).
"""

from __future__ import annotations

import re
import warnings
from collections.abc import Callable
from dataclasses import dataclass, field
from types import ModuleType
from typing import Any

import pytest

Misuse = Callable[[ModuleType], Any]

# The only rewrites applied to messages before the containment check, each one narrow:
_ANSI = re.compile(r"\x1b\[[0-9;]*m")  # the logger's colour codes around a warning
# Gymnasium naming itself: `gymnasium.spaces.Space`, "a gymnasium space", "Gymnasium Spaces"
# (not its docs' address, gymnasium.farama.org, which palaestra's messages cite as it is).
_OWN_NAME = re.compile(r"\b([Gg])ymnasium(?=\.[A-Za-z_]| [Ss]paces?\b)(?!\.farama\.org)")
# The same inside a repr (`<class 'gymnasium.spaces.box.Box'>`, `module 'gymnasium.wrappers'`),
# which states the module an object comes from rather than naming an API for the user.
_REPR_NAME = re.compile(r"(?<=')gymnasium(?=\.[A-Za-z_])")
_ADDRESS = re.compile(r" at 0x[0-9a-fA-F]+")  # object reprs carry a memory address
# Prose where Gymnasium names itself as the library acting, and palaestra's wording of it.
SELF_REFERENCES = (
    ("Currently, Gymnasium does not support", "Currently, palaestra does not support"),
    ("reset gymnasium environments using", "reset palaestra environments using"),
    ("Current gymnasium version requires", "Current palaestra version requires"),
    (
        "Gym tried to apply the HumanRendering wrapper",
        "palaestra tried to apply the HumanRendering wrapper",
    ),
)


def normalise(text: str, *, rename: bool = True) -> str:
    """The message as compared: colour codes and addresses gone, self-names made palaestra's.

    ``rename=False`` keeps the prose names (``gymnasium.spaces.Space``, "a gymnasium space",
    "Current gymnasium version") as they are and renames only reprs: the comparison made when
    palaestra runs under Gymnasium's name and must then name itself as Gymnasium does.
    """
    text = _ANSI.sub("", text)
    if rename:
        for theirs, ours in SELF_REFERENCES:
            text = text.replace(theirs, ours)
    text = _REPR_NAME.sub("palaestra", text)
    if rename:
        text = _OWN_NAME.sub(lambda m: "Palaestra" if m[1] == "G" else "palaestra", text)
    return _ADDRESS.sub(" at 0x?", text)


def names_itself(text: str) -> bool:
    """Whether Gymnasium's ``text`` names itself in prose (``gymnasium.X``, not in a repr)."""
    text = _REPR_NAME.sub("palaestra", _ANSI.sub("", text))
    own_words = any(theirs in text for theirs, _ in SELF_REFERENCES)
    return own_words or _OWN_NAME.search(text) is not None


def type_key(cls: type) -> tuple[str, str]:
    """A class named framework-independently: (module with palaestra for gymnasium, qualname)."""
    module = cls.__module__
    if module == "gymnasium" or module.startswith("gymnasium."):
        module = "palaestra" + module[len("gymnasium") :]
    return module, cls.__qualname__


@dataclass
class Outcome:
    """What one framework did on a misuse: the exception (or None) and the warnings issued."""

    error: BaseException | None
    warnings: list[tuple[type[Warning], str]] = field(default_factory=list)

    def describe(self) -> str:
        raised = "nothing" if self.error is None else f"{type(self.error).__name__}({self.error})"
        warned = [f"{c.__name__}({normalise(m)!r})" for c, m in self.warnings]
        return f"raised {raised}; warned {warned}"


def run_case(misuse: Misuse, gym: ModuleType) -> Outcome:
    """Run ``misuse(gym)`` recording every warning (none de-duplicated) and any exception."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            misuse(gym)
            error = None
        except Exception as e:  # the exception is the outcome under test
            error = e
    return Outcome(error, [(w.category, str(w.message)) for w in caught])


def _same_or_sub(ours: type, theirs: type) -> bool:
    return any(type_key(cls) == type_key(theirs) for cls in ours.__mro__)


def compare(ours: Outcome, theirs: Outcome, *, rename: bool = True) -> list[str]:
    """How palaestra's outcome differs from Gymnasium's; empty when they agree.

    ``rename`` is passed to ``normalise`` for every message compared.
    """
    problems = []

    def norm(text: str) -> str:
        return normalise(text, rename=rename)

    if theirs.error is None and ours.error is not None:
        problems.append(f"palaestra raised {ours.error!r}, Gymnasium did not")
    elif theirs.error is not None:
        if ours.error is None:
            problems.append(f"Gymnasium raised {theirs.error!r}, palaestra did not")
        elif not _same_or_sub(type(ours.error), type(theirs.error)):
            problems.append(f"type: {type(ours.error)} is not {type(theirs.error)}")
        elif norm(str(theirs.error)) not in norm(str(ours.error)):
            problems.append(f"message: {norm(str(ours.error))!r} lacks {norm(str(theirs.error))!r}")
    unmatched = list(ours.warnings)
    for category, text in theirs.warnings:
        match = next(
            (w for w in unmatched if _same_or_sub(w[0], category) and norm(text) in norm(w[1])),
            None,
        )
        if match is None:
            problems.append(f"missing warning {category.__name__}: {norm(text)!r}")
        else:
            unmatched.remove(match)
    problems.extend(f"extra warning {c.__name__}: {norm(m)!r}" for c, m in unmatched)
    return problems


class CaseTable:
    """An ordered table of named cases; ``add`` is a decorator that registers one.

    Example:
        >>> table = CaseTable("demo")
        >>> @table.add
        ... def discrete_zero(gym):
        ...     gym.spaces.Discrete(0)
        >>> [case.__name__ for case in table.cases]
        ['discrete_zero']
    """

    def __init__(self, area: str):
        self.area = area
        self.cases: list[Misuse] = []
        self.marks: dict[str, Any] = {}

    def add(self, misuse: Misuse | None = None, *, xfail: str | None = None):
        """Register ``misuse``; ``xfail`` names a known palaestra mismatch (strict xfail)."""

        def register(function: Misuse) -> Misuse:
            self.cases.append(function)
            if xfail is not None:
                self.marks[function.__name__] = pytest.mark.xfail(strict=True, reason=xfail)
            return function

        return register if misuse is None else register(misuse)

    def params(self) -> list[Any]:
        """The cases as pytest params with ids ``area.name`` and their marks."""
        return [
            pytest.param(
                case,
                id=f"{self.area}.{case.__name__}",
                marks=[self.marks[case.__name__]] if case.__name__ in self.marks else [],
            )
            for case in self.cases
        ]
