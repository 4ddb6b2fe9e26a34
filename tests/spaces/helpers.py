"""Comparison helpers for space elements (nested tuples, dicts, arrays, graphs, strings)."""

from __future__ import annotations

from typing import Any

import numpy as np


def assert_samples_equal(left: Any, right: Any) -> None:
    """Assert two space elements are equal in structure, values and (for arrays) dtype."""
    if isinstance(left, dict):
        assert isinstance(right, dict) and list(left) == list(right), (left, right)
        for key in left:
            assert_samples_equal(left[key], right[key])
    elif isinstance(left, tuple) and not hasattr(left, "_fields"):
        assert isinstance(right, tuple) and len(left) == len(right), (left, right)
        for a, b in zip(left, right):
            assert_samples_equal(a, b)
    elif hasattr(left, "_fields"):  # GraphInstance, from either library
        assert tuple(right._fields) == tuple(left._fields), (left, right)
        for a, b in zip(left, right):
            assert_samples_equal(a, b)
    elif isinstance(left, (np.ndarray, np.generic)):
        right = np.asarray(right)
        assert np.asarray(left).dtype == right.dtype, (left, right)
        np.testing.assert_array_equal(left, right)
    else:
        assert type(left) is type(right) and left == right, (left, right)


def with_graph_type(value: Any, graph_type: type) -> Any:
    """Rebuild ``value`` with every graph instance converted to ``graph_type``.

    Each library only accepts its own ``GraphInstance`` class in ``Graph.contains``.
    """
    if hasattr(value, "_fields"):
        return graph_type(*value)
    if isinstance(value, tuple):
        return tuple(with_graph_type(item, graph_type) for item in value)
    if isinstance(value, dict):
        return {key: with_graph_type(item, graph_type) for key, item in value.items()}
    return value
