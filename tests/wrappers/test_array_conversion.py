"""array_conversion and ArrayConversion between numpy and numpy (no optional library needed)."""

from __future__ import annotations

import importlib
import pickle
import re
import subprocess
import sys
from collections import namedtuple

import numpy as np
import pytest

import palaestra
from palaestra.error import DependencyNotInstalled
from palaestra.wrappers import ArrayConversion
from palaestra.wrappers.array_conversion import array_conversion, module_namespace
from tests.wrappers.vector.differential import assert_same, rollout, sample_actions

NUMPY = module_namespace(np)
Point = namedtuple("Point", ["x", "y"])


def test_containers_keep_their_types():
    value = {"a": (np.zeros(2), [np.ones(1)]), "b": Point(np.int64(1), 2.5)}
    converted = array_conversion(value, NUMPY)
    assert type(converted["a"]) is tuple
    assert type(converted["a"][1]) is list
    assert type(converted["b"]) is Point


def test_arrays_keep_their_dtype_and_values():
    array = np.arange(6, dtype=np.int16).reshape(2, 3)
    converted = array_conversion(array, NUMPY)
    assert converted.dtype == np.int16
    assert np.array_equal(converted, array)


@pytest.mark.parametrize("value", ["text", b"bytes", None])
def test_strings_and_none_pass_through(value):
    assert array_conversion(value, NUMPY) == value


def test_numpy_booleans_become_arrays():
    assert array_conversion(np.bool_(True), NUMPY).dtype == np.bool_


def test_unknown_types_are_refused_with_a_clear_error():
    with pytest.raises(TypeError, match="No known conversion"):
        array_conversion(object(), NUMPY)


def test_a_module_without_arrays_is_refused():
    with pytest.raises(ValueError, match="not an Array API compatible module"):
        module_namespace(pickle)


@pytest.fixture
def numpy_to_numpy():
    return ArrayConversion(palaestra.make("CartPole-v1"), env_xp=np, target_xp=np)


def test_numpy_to_numpy_changes_nothing_but_python_scalars(numpy_to_numpy):
    actions = sample_actions(numpy_to_numpy.action_space, 20)
    assert_same(rollout(numpy_to_numpy, actions), rollout(palaestra.make("CartPole-v1"), actions))


def test_rewards_and_flags_become_python_scalars(numpy_to_numpy):
    numpy_to_numpy.reset(seed=0)
    _, reward, terminated, truncated, _ = numpy_to_numpy.step(np.int64(0))
    assert (type(reward), type(terminated), type(truncated)) == (float, bool, bool)


def test_the_wrapper_pickles_by_library_name(numpy_to_numpy):
    restored = pickle.loads(pickle.dumps(numpy_to_numpy))
    assert restored._target_xp is NUMPY
    assert restored.spec.additional_wrappers[0].kwargs["env_xp"] is np
    assert_same(restored.reset(seed=1), numpy_to_numpy.reset(seed=1))


@pytest.mark.parametrize(
    ("module", "missing", "extra"),
    [
        ("palaestra.wrappers.numpy_to_torch", "torch", "palaestra[torch]"),
        ("palaestra.wrappers.jax_to_numpy", "jax", "palaestra[jax]"),
        ("palaestra.wrappers.jax_to_torch", "jax", "palaestra[jax]"),
    ],
)
def test_missing_library_names_the_extra_to_install(monkeypatch, module, missing, extra):
    monkeypatch.setitem(sys.modules, missing, None)
    monkeypatch.setitem(sys.modules, f"{missing}.numpy", None)
    monkeypatch.delitem(sys.modules, module, raising=False)
    with pytest.raises(DependencyNotInstalled, match=re.escape(extra)):
        importlib.import_module(module)


def test_wrappers_package_imports_optional_libraries_lazily():
    code = "import sys, palaestra.wrappers; print('torch' in sys.modules, 'jax' in sys.modules)"
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    )
    assert result.stdout.split() == ["False", "False"]
