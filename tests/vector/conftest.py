"""Fixtures for the vector env tests: leak checks around the async tests."""

from __future__ import annotations

import multiprocessing
import os
import time

import pytest

from tests.vector.helpers import shared_memory_entries, wait_for_no_children

# Name prefixes of the /dev/shm entries that multiprocessing creates.
_MULTIPROCESSING_SHM_PREFIXES = ("pym-", "psm_", "sem.mp-", "mp-")


def _new_multiprocessing_entries(before: set[str]) -> set[str]:
    new = shared_memory_entries() - before
    return {name for name in new if name.startswith(_MULTIPROCESSING_SHM_PREFIXES)}


def _mapped_by_other_processes(names: set[str]) -> set[str]:
    """Those of ``names`` that a process other than this one maps (another test run's)."""
    held: set[str] = set()
    for pid in os.listdir("/proc"):
        if not pid.isdigit() or int(pid) == os.getpid():
            continue
        try:
            with open(f"/proc/{pid}/maps") as maps:
                text = maps.read()
        except OSError:
            continue
        held |= {name for name in names if f"/dev/shm/{name}" in text}
    return held


@pytest.fixture
def no_leaks():
    """Fail the test if it leaves child processes or /dev/shm segments behind.

    Other processes on the machine may create segments meanwhile, so only multiprocessing's
    names count, only if they are still there a moment later, and not while a process
    outside this one (this test's children have ended by then) still maps them.
    """
    children_before = set(multiprocessing.active_children())
    shm_before = shared_memory_entries()
    yield
    assert wait_for_no_children(exclude=children_before) == []
    leftover = _new_multiprocessing_entries(shm_before)
    if leftover:
        time.sleep(0.5)
        leftover &= _new_multiprocessing_entries(shm_before)
        leftover -= _mapped_by_other_processes(leftover)
    assert leftover == set()
