"""Pieces of the worker loop that are plain functions."""

from __future__ import annotations

from palaestra.vector.async_worker import failure_report


def test_failure_report_keeps_a_picklable_exception_type():
    index, error_type, message, *_ = failure_report(3, KeyError("x"))
    assert (index, error_type, message) == (3, KeyError, "'x'")


def test_failure_report_replaces_an_unpicklable_type_by_runtime_error():
    class LocalError(Exception):
        pass

    _, error_type, message, *_ = failure_report(0, LocalError("lost"))
    assert error_type is RuntimeError
    assert message.endswith("LocalError: lost")


def test_failure_report_carries_the_current_traceback():
    try:
        raise ValueError("inside")
    except ValueError as error:
        trace = failure_report(1, error)[3]
    assert "Traceback (most recent call last)" in trace and "ValueError: inside" in trace
