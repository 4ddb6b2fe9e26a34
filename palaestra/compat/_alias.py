"""``import gymnasium`` resolves to palaestra, in this process and in the processes it starts.

:func:`as_gymnasium` puts a finder first on ``sys.meta_path`` that answers every import of
``gymnasium`` or ``gymnasium.<sub>`` with the palaestra module of the same path (the very
module object, so ``gymnasium.spaces.Box is palaestra.spaces.Box``). Processes started by
forking inherit it. For the others (multiprocessing's ``spawn`` and ``forkserver``,
``subprocess`` running Python) it sets ``PALAESTRA_AS_GYMNASIUM=1`` and puts a folder whose
``sitecustomize`` installs the same finder first on ``PYTHONPATH`` (then runs any other
``sitecustomize`` on the path, so the environment's own keeps working).
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.machinery
import importlib.util
import os
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

ENV_FLAG = "PALAESTRA_AS_GYMNASIUM"
SITE_FOLDER = str(Path(__file__).resolve().with_name("_site"))

ALREADY_IMPORTED = (
    "the real gymnasium is already imported in this process ({where}), so objects made from it "
    "would be mixed with palaestra's: call palaestra.compat.as_gymnasium() before anything "
    "imports gymnasium (Stable-Baselines3, CleanRL helpers, ...), or run the program as "
    "`python -m palaestra.compat script.py`"
)


class GymnasiumAlias(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """The finder and loader of ``gymnasium[.<sub>]``: the palaestra module of that path."""

    def find_spec(self, fullname: str, path: Any = None, target: Any = None) -> Any:
        """Claim ``gymnasium`` and its submodules; leave every other import alone."""
        if fullname != "gymnasium" and not fullname.startswith("gymnasium."):
            return None
        module = importlib.import_module(palaestra_name(fullname))
        return importlib.util.spec_from_loader(
            fullname, self, is_package=hasattr(module, "__path__")
        )

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> ModuleType:
        """Hand over palaestra's own module object (its ``__spec__`` is restored next)."""
        module = sys.modules[palaestra_name(spec.name)]
        self._own_spec = module.__spec__
        return module

    def exec_module(self, module: ModuleType) -> None:
        """Nothing to run: the module is palaestra's, already executed; keep its own spec."""
        module.__spec__ = self._own_spec


def palaestra_name(gymnasium_name: str) -> str:
    """Return the palaestra module path that stands for a ``gymnasium`` one.

    Example:
        >>> palaestra_name("gymnasium.wrappers.vector")
        'palaestra.wrappers.vector'
    """
    return "palaestra" + gymnasium_name[len("gymnasium") :]


def is_active() -> bool:
    """Return whether ``import gymnasium`` resolves to palaestra in this process.

    Example:
        >>> is_active()
        False
    """
    return any(isinstance(finder, GymnasiumAlias) for finder in sys.meta_path)


def install_in_this_process() -> None:
    """Put the alias first on ``sys.meta_path`` (once).

    Raises:
        RuntimeError: the real ``gymnasium`` is already imported here.
    """
    if is_active():
        return
    real = sys.modules.get("gymnasium")
    if real is not None:
        where = getattr(real, "__file__", None) or "gymnasium"
        raise RuntimeError(ALREADY_IMPORTED.format(where=where))
    sys.meta_path.insert(0, GymnasiumAlias())


def pass_to_child_processes() -> None:
    """Make Python processes started from here on install the alias at start-up."""
    os.environ[ENV_FLAG] = "1"
    entries = [e for e in os.environ.get("PYTHONPATH", "").split(os.pathsep) if e]
    # palaestra must stay importable in the child as it is here (a checkout on sys.path).
    package_root = str(Path(__file__).resolve().parents[2])
    for entry in (package_root, SITE_FOLDER):
        if entry in entries:
            entries.remove(entry)
        entries.insert(0, entry)
    os.environ["PYTHONPATH"] = os.pathsep.join(entries)


def run_other_sitecustomize() -> None:
    """Run the ``sitecustomize`` this folder's one shadows, if the path has another."""
    for entry in sys.path:
        if not entry or os.path.abspath(entry) == SITE_FOLDER:
            continue
        spec = importlib.machinery.PathFinder.find_spec("sitecustomize", [entry])
        if spec is not None and spec.loader is not None:
            module = importlib.util.module_from_spec(spec)
            sys.modules["_palaestra_shadowed_sitecustomize"] = module
            spec.loader.exec_module(module)
            return


def as_gymnasium() -> None:
    """Make ``import gymnasium`` resolve to palaestra for this whole process and its workers.

    Call it before anything imports Gymnasium; after it, programs and libraries written for
    Gymnasium (a CleanRL script, Stable-Baselines3) get palaestra's modules under Gymnasium's
    names, so ``isinstance(space, gymnasium.spaces.Box)`` holds for palaestra's spaces and
    ``gymnasium.make`` makes palaestra's envs. ``python -m palaestra.compat script.py`` runs a
    script so. Limits: Gymnasium's own code is not used at all (envs only Gymnasium registers,
    such as Atari's, are not there unless palaestra has them), ``to_gymnasium`` and the other
    adapters to the real Gymnasium refuse to run, and the real ``gymnasium`` cannot already be
    imported.

    Raises:
        RuntimeError: the real ``gymnasium`` is already imported in this process.

    Example:
        >>> import subprocess, sys
        >>> code = "from palaestra.compat import as_gymnasium; as_gymnasium(); "
        >>> code += "import gymnasium, palaestra; print(gymnasium.Env is palaestra.Env)"
        >>> run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
        >>> run.stdout.strip()
        'True'
    """
    install_in_this_process()
    pass_to_child_processes()
