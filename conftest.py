"""Test-session setup shared by the test suite and the package's doctests."""

from __future__ import annotations

import importlib.util
import os

# Rendering runs headless everywhere tests run.
os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")
os.environ.setdefault("MPLBACKEND", "Agg")


def _missing(module: str) -> bool:
    return importlib.util.find_spec(module) is None


# Doctests of modules built on an optional dependency are collected only when it is installed.
collect_ignore_glob: list[str] = []
if _missing("jax"):
    collect_ignore_glob += ["palaestra/wrappers/jax_*.py", "palaestra/wrappers/vector/jax_*.py"]
if _missing("numba"):
    collect_ignore_glob += [
        "palaestra/envs/classic_control/vector/_compiled.py",
        "palaestra/vector/native/compiled.py",
    ]
if _missing("torch"):
    collect_ignore_glob += [
        "palaestra/train/*",
        "palaestra/cli/train.py",
        "palaestra/cli/eval.py",
        "palaestra/wrappers/*torch*.py",
        "palaestra/wrappers/vector/*torch*.py",
    ]
if _missing("Box2D"):
    collect_ignore_glob += ["palaestra/envs/box2d/*", "tests/envs/box2d/*"]
if _missing("ale_py"):
    collect_ignore_glob += ["palaestra/envs/atari/*", "tests/envs/atari/*"]
