"""JaxToNumpy and JaxToTorch; skipped (with this reason) unless JAX is installed.

Run them with ``pip install "palaestra[jax]"`` and then
``python -m pytest tests/wrappers/test_jax_wrappers.py``.
"""

from __future__ import annotations

import numpy as np
import pytest

import palaestra

jnp = pytest.importorskip(
    "jax.numpy", reason='JAX is not installed; `pip install "palaestra[jax]"` to run these tests'
)


def test_jax_to_numpy_round_trip_keeps_values():
    from palaestra.wrappers.jax_to_numpy import jax_to_numpy, numpy_to_jax

    value = {"a": np.arange(3.0, dtype=np.float32), "b": (np.int32(4),)}
    back = jax_to_numpy(numpy_to_jax(value))
    assert np.array_equal(back["a"], value["a"])
    assert back["a"].dtype == np.float32


def test_jax_to_numpy_wrapper_returns_numpy():
    from palaestra.wrappers import JaxToNumpy
    from palaestra.wrappers.jax_to_numpy import numpy_to_jax

    class JaxCartPole(palaestra.Wrapper):
        def reset(self, **kwargs):
            return numpy_to_jax(self.env.reset(**kwargs))

        def step(self, action):
            return numpy_to_jax(self.env.step(np.asarray(action)))

    env = JaxToNumpy(JaxCartPole(palaestra.make("CartPole-v1")))
    obs, _ = env.reset(seed=0)
    assert isinstance(obs, np.ndarray)
    assert isinstance(env.step(np.int64(1))[1], float)


def test_jax_to_torch_converts_both_ways():
    torch = pytest.importorskip("torch", reason="JaxToTorch needs the torch extra")
    from palaestra.wrappers.jax_to_torch import jax_to_torch, torch_to_jax

    tensor = torch.arange(3, dtype=torch.float32)
    assert torch.equal(jax_to_torch(torch_to_jax(tensor)), tensor)
