"""Fixtures for the vector env tests: leak checks around the async tests."""

from __future__ import annotations

import multiprocessing
import time

import pytest

from tests.vector.helpers import shared_memory_entries, wait_for_no_children

# Name prefixes of the /dev/shm entries that multiprocessing creates.
_MULTIPROCESSING_SHM_PREFIXES = ("pym-", "psm_", "sem.mp-", "mp-")


def _new_multiprocessing_entries(before: set[str]) -> set[str]:
    new = shared_memory_entries() - before
    return {name for name in new if name.startswith(_MULTIPROCESSING_SHM_PREFIXES)}


@pytest.fixture
def no_leaks():
    """Fail the test if it leaves child processes or /dev/shm segments behind.

    Other processes on the machine may create segments meanwhile, so only multiprocessing's
    names count, and only if they are still there a moment later.
    """
    children_before = set(multiprocessing.active_children())
    shm_before = shared_memory_entries()
    yield
    assert wait_for_no_children(exclude=children_before) == []
    leftover = _new_multiprocessing_entries(shm_before)
    if leftover:
        time.sleep(0.5)
        leftover &= _new_multiprocessing_entries(shm_before)
    assert leftover == set()
