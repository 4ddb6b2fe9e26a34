"""Fixtures for the vector env tests: leak checks around every async test."""

from __future__ import annotations

import pytest

from tests.vector.helpers import shared_memory_entries, wait_for_no_children


@pytest.fixture
def no_leaks():
    """Fail the test if it leaves child processes or new /dev/shm entries behind."""
    shm_before = shared_memory_entries()
    yield
    assert wait_for_no_children() == []
    assert shared_memory_entries() - shm_before == set()
