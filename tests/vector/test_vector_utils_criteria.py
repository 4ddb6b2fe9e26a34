"""Issue 3 criteria for the small vector utilities: CloudpickleWrapper and clear_mpi_env_vars."""

from __future__ import annotations

import os
import pickle

import pytest

from palaestra.vector.utils import CloudpickleWrapper, clear_mpi_env_vars


def test_cloudpickle_wrapper_carries_a_closure_through_plain_pickle():
    offset = 40

    def build():
        return offset + 2

    restored = pickle.loads(pickle.dumps(CloudpickleWrapper(build)))
    assert restored() == 42


def test_clear_mpi_env_vars_hides_only_mpi_variables(monkeypatch):
    monkeypatch.setenv("OMPI_COMM_WORLD_SIZE", "4")
    monkeypatch.setenv("PMI_RANK", "1")
    monkeypatch.setenv("PALAESTRA_UNRELATED", "kept")
    with clear_mpi_env_vars():
        assert "OMPI_COMM_WORLD_SIZE" not in os.environ
        assert "PMI_RANK" not in os.environ
        assert os.environ["PALAESTRA_UNRELATED"] == "kept"
    assert os.environ["OMPI_COMM_WORLD_SIZE"] == "4"
    assert os.environ["PMI_RANK"] == "1"


def test_clear_mpi_env_vars_restores_the_variables_after_an_error(monkeypatch):
    monkeypatch.setenv("OMPI_COMM_WORLD_SIZE", "4")
    with pytest.raises(RuntimeError, match="inside"), clear_mpi_env_vars():
        raise RuntimeError("inside")
    assert os.environ["OMPI_COMM_WORLD_SIZE"] == "4"
