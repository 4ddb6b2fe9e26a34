"""ale-py's emulator and ROMs, found with clear errors: the one place ``ale_py`` is imported.

The Arcade Learning Environment's C++ interface (``ale_py.ALEInterface``) and the ROMs come
from the ``ale-py`` package (the ``atari`` extra). Everything is checked before the emulator
sees it: given a path that does not exist, ALE's ``loadROM`` ends the whole process.

Example:
    >>> rom_path("pong").name
    'pong.bin'
    >>> import_ale().ALEInterface.__name__
    'ALEInterface'
"""

from __future__ import annotations

import difflib
import os
from pathlib import Path
from typing import Any

from palaestra import error
from palaestra.envs._atari_ids import MULTIPLAYER_ONLY, ROM_IDS

__all__ = ["INSTALL_HINT", "import_ale", "rom_path", "check_display"]

INSTALL_HINT = 'run `pip install "palaestra[atari]"`'

# ale-py reads its ROMs from this folder when the variable is set, as ALE's own tools do.
ROMS_DIR_VARIABLE = "ALE_ROMS_DIR"


def import_ale() -> Any:
    """Import and return the ``ale_py`` module, or explain how to install it.

    Raises:
        DependencyNotInstalled: if ale-py is not installed.

    Example:
        >>> import_ale().__name__
        'ale_py'
    """
    try:
        import ale_py
    except ImportError as e:
        raise error.DependencyNotInstalled(
            f"ale-py is not installed; the Atari environments need it: {INSTALL_HINT}"
        ) from e
    return ale_py


def roms_dir() -> Path:
    """Return the ROMs' folder: ``$ALE_ROMS_DIR``, else ale-py's bundled ``roms/``.

    Raises:
        DependencyNotInstalled: without ``$ALE_ROMS_DIR``, if ale-py is not installed.

    Example:
        >>> roms_dir().name
        'roms'
    """
    if folder := os.environ.get(ROMS_DIR_VARIABLE):
        return Path(folder)
    return Path(import_ale().__file__).parent / "roms"


def rom_path(game: str) -> Path:
    """Return the ROM file of ``game`` (a snake_case ROM name such as ``"space_invaders"``).

    Raises:
        palaestra.error.Error: if ``game`` is not one of the ROMs ale-py ships, or is one of
            the four without a single-player mode (ALE would end the process loading them).
        FileNotFoundError: if the ROM file is missing.

    Example:
        >>> rom_path("Pong")
        Traceback (most recent call last):
            ...
        palaestra.error.Error: Unknown Atari game 'Pong' (did you mean 'pong'?). ...
    """
    if game not in ROM_IDS:
        playable = sorted(set(ROM_IDS) - MULTIPLAYER_ONLY)
        close = difflib.get_close_matches(str(game).lower(), playable, n=3, cutoff=0.75)
        hint = f" (did you mean {' or '.join(map(repr, close))}?)" if close else ""
        raise error.Error(
            f"Unknown Atari game {game!r}{hint}. The games are the snake_case names of "
            f"ale-py's ROMs: {', '.join(playable)}."
        )
    if game in MULTIPLAYER_ONLY:
        raise error.Error(
            f"The Atari game {game!r} has no single-player mode, which the Arcade Learning "
            f"Environment needs (none of {', '.join(sorted(MULTIPLAYER_ONLY))} has one); "
            "choose another game."
        )
    path = roms_dir() / f"{game}.bin"
    if not path.is_file():
        raise FileNotFoundError(
            f"The ROM of {game!r} is missing: {path} does not exist. ale-py ships its ROMs; "
            f'reinstall it (`pip install --force-reinstall "palaestra[atari]"`), or set '
            f"{ROMS_DIR_VARIABLE} to a folder holding {game}.bin."
        )
    return path


def check_display(ale_py: Any, environ: dict[str, str] | None = None) -> None:
    """Refuse ``render_mode="human"`` where ALE cannot open its window (it would show nothing).

    Args:
        ale_py: the ``ale_py`` module.
        environ: the environment variables to judge (``os.environ`` by default).

    Raises:
        palaestra.error.Error: in one line, when there is no display or ale-py lacks SDL.

    Example:
        >>> check_display(import_ale(), environ={})
        Traceback (most recent call last):
            ...
        palaestra.error.Error: render_mode='human' cannot open a window: no display: ...
    """
    from palaestra.cli.play import display_problem

    problem = display_problem(environ)
    if problem is None and not ale_py.SDL_SUPPORT:
        problem = "this build of ale-py has no SDL support"
    if problem is not None:
        raise error.Error(
            f"render_mode='human' cannot open a window: {problem}; use render_mode='rgb_array' "
            "to get frames without a window."
        )
