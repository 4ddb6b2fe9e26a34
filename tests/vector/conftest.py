"""Fixtures for the vector env tests: leak checks around the multi-process tests."""

from __future__ import annotations

import pytest

from tests.fixtures.leaks import leaks, snapshot


@pytest.fixture
def no_leaks():
    """Fail the test if it leaves descriptors, threads, children or /dev/shm segments behind.

    See :mod:`tests.fixtures.leaks` for what counts.
    """
    before = snapshot()
    yield
    assert leaks(before) == {}
