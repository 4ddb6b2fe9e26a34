"""PPO's hand-written backends: when they apply, and what they share with autograd.

The backends are two implementations of the same step: the compiled one (numba loops and
NumPy products, :mod:`palaestra.train.ppo_gradients`, chosen when numba is installed) and
the torch one; ``compiled`` parametrizes the checks over both. That each equals autograd
on :meth:`PPO.loss <palaestra.train.ppo.PPO.loss>` is ``tests/train/test_backends.py``'s.
"""

import numpy as np
import pytest

torch = pytest.importorskip("torch")

import palaestra as gym  # noqa: E402
from palaestra.spaces import Box, MultiDiscrete  # noqa: E402
from palaestra.train import ppo_gradients  # noqa: E402
from palaestra.train.core.optim import FlatGradients, clip_grad_norm  # noqa: E402
from palaestra.train.diagnostics import NonFiniteError  # noqa: E402
from palaestra.train.ppo import PPO  # noqa: E402
from palaestra.train.ppo_gradients import PPOGradients  # noqa: E402
from tests.train.envs import ActionSpaceEnv  # noqa: E402
from tests.train.helpers import ppo_batch  # noqa: E402

TINY = {"num_envs": 2, "n_steps": 8, "batch_size": 16, "n_epochs": 1, "hidden_sizes": (8, 6)}
HAS_NUMBA = ppo_gradients.compiled_kernels() is not None


@pytest.fixture(params=["compiled", "torch"])
def compiled(request):
    """Whether the fast path runs its compiled step (skipped without numba) or torch's."""
    if request.param == "compiled" and not HAS_NUMBA:
        pytest.skip("numba (the fast extra) is not installed")
    return request.param == "compiled"


def _fast_agent(env_id, compiled, **settings):
    agent = PPO("MlpPolicy", env_id, **settings)
    assert agent.fast_path
    if not compiled:
        agent._compiled = None
        agent.backend = "hand-written"
    assert (agent._compiled is not None) == compiled
    return agent


def test_the_fast_path_is_chosen_for_the_mlp_on_flat_box_observations():
    assert PPO("MlpPolicy", "CartPole-v1", **TINY).fast_path is True
    assert PPO("MlpPolicy", "Pendulum-v1", **TINY).fast_path is True


def test_fast_path_false_trains_with_autograd():
    agent = PPO("MlpPolicy", "CartPole-v1", fast_path=False, **TINY)
    agent.learn(32, progress_bar=False)
    assert agent.fast_path is False and agent.num_updates == 2


def test_fast_path_true_where_it_does_not_apply_names_the_reason():
    with pytest.raises(ValueError, match=r"fast_path=True does not apply here: .*MultiDiscrete"):
        PPO("MlpPolicy", _multi_discrete_env(), fast_path=True, **TINY)


def test_both_paths_start_from_the_same_weights():
    fast = PPO("MlpPolicy", "CartPole-v1", seed=5, **TINY)
    slow = PPO("MlpPolicy", "CartPole-v1", seed=5, fast_path=False, **TINY)
    observations = torch.randn(7, 4)
    with torch.no_grad():
        fast_out, fast_values = fast.model(observations)
        slow_out, slow_values = slow.policy(observations)
    torch.testing.assert_close(fast_out, slow_out)
    torch.testing.assert_close(fast_values, slow_values)


@pytest.mark.parametrize("env_id", ["CartPole-v1", "Pendulum-v1"])
def test_compiled_evaluation_of_a_rollout_equals_torchs(env_id):
    if not HAS_NUMBA:
        pytest.skip("numba (the fast extra) is not installed")
    agent = _fast_agent(env_id, True, seed=3, **TINY)
    agent.learn(32, progress_bar=False)
    agent._collect_rollout()
    compiled_batch = agent._training_batch()
    agent._compiled = None
    for got, want in zip(compiled_batch, agent._training_batch(), strict=True):
        torch.testing.assert_close(got, want, rtol=1e-5, atol=1e-6)


def test_without_numba_the_fast_path_takes_its_torch_step(monkeypatch):
    monkeypatch.setitem(ppo_gradients._KERNELS, "kernels", None)
    agent = PPO("MlpPolicy", "CartPole-v1", **TINY)
    assert agent.fast_path and agent._compiled is None
    agent.learn(32, progress_bar=False)
    assert agent.num_updates == 2


def test_the_compiled_step_does_not_apply_to_other_heads():
    from palaestra.train.distributions import MultiCategoricalHead
    from palaestra.train.networks import ActorCritic

    assert PPOGradients.create(ActorCritic(3, 5, (8,)), MultiCategoricalHead([2, 3])) is None


def test_a_non_finite_gradient_stops_the_fast_path_with_the_step(compiled):
    agent = _fast_agent("CartPole-v1", compiled, **TINY)
    batch = list(ppo_batch(agent, torch.Generator().manual_seed(0)))
    batch[0] = batch[0].clone()
    batch[0][3, 1] = float("nan")
    agent._advantages_normalized = False
    with pytest.raises(NonFiniteError, match=r"non-finite loss or gradient at update 1"):
        agent.compute_gradients(tuple(batch))


@pytest.mark.parametrize("scale", [0.01, 100.0])
def test_flat_gradient_clipping_equals_per_tensor_clipping(scale):
    generator = torch.Generator().manual_seed(0)
    shapes = [(3, 4), (4,), (2, 1, 5)]
    grads = [torch.randn(shape, generator=generator) * scale for shape in shapes]
    plain = [torch.nn.Parameter(torch.zeros(shape)) for shape in shapes]
    flat = [torch.nn.Parameter(torch.zeros(shape)) for shape in shapes]
    gradients = FlatGradients(flat)
    gradients.zero()
    for p, q, g in zip(plain, flat, grads):
        p.grad = g.clone()
        q.grad += g  # what autograd does with an existing .grad: accumulate in place
    want = float(clip_grad_norm(plain, 0.5))
    assert gradients.clip(0.5) == pytest.approx(want, rel=1e-6)
    for p, q in zip(plain, flat):
        torch.testing.assert_close(q.grad, p.grad)
    assert all(q.grad.data_ptr() != 0 and q.grad._base is gradients.flat for q in flat)


def test_flat_gradients_reattach_after_set_to_none():
    weight = torch.nn.Parameter(torch.ones(3))
    gradients = FlatGradients([weight])
    weight.grad = None
    gradients.zero()
    (2.0 * weight).sum().backward()
    assert weight.grad._base is gradients.flat
    assert gradients.flat.tolist() == [2.0, 2.0, 2.0]


def test_flat_gradients_refuse_other_dtypes():
    with pytest.raises(ValueError, match=r"CPU float32 parameters, got torch\.float64"):
        FlatGradients([torch.nn.Parameter(torch.zeros(2, dtype=torch.float64))])


@pytest.mark.parametrize("compiled_step", [True, False])
def test_fast_path_training_is_deterministic(compiled_step):
    if compiled_step and not HAS_NUMBA:
        pytest.skip("numba (the fast extra) is not installed")
    curves = []
    for _ in range(2):
        agent = _fast_agent("CartPole-v1", compiled_step, seed=4, **dict(TINY, n_epochs=3))
        curves.append([row["loss"] for row in agent.learn(64, progress_bar=False).history])
    assert curves[0] == curves[1]


def test_a_fast_path_agent_saves_the_same_policy_weights_it_acts_with(tmp_path):
    agent = PPO("MlpPolicy", "CartPole-v1", **TINY)
    agent.learn(32, progress_bar=False)
    agent.save(tmp_path / "agent.pt")
    autograd = PPO.load(tmp_path / "agent.pt", fast_path=False)
    observations = np.random.default_rng(1).normal(size=(32, 4)).astype(np.float32)
    np.testing.assert_array_equal(autograd.predict(observations), agent.predict(observations))


def _multi_discrete_env():
    return gym.vector.SyncVectorEnv(
        [lambda: ActionSpaceEnv(MultiDiscrete([3, 2]), Box(-1, 1, (3,)))]
    )
