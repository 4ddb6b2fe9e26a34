"""The off-policy speed-ups compute what the plain versions compute.

- ``DQNGradients`` (hand-written DQN and double-DQN gradients) equals autograd on the same
  batch, through its numba kernels and through torch operations alone (that a training
  round equals autograd on ``DQN.loss`` is ``test_backends.py``'s); ``ChunkedTargetValues``
  equals the network.
- ``AdamStep`` is bit-for-bit ``torch.optim.Adam(fused=True).step()``.
- ``ReplayBuffer.sample_batches`` draws rows that are stored transitions, consistently.
"""

import copy
import dataclasses

import numpy as np
import pytest

torch = pytest.importorskip("torch")
F = torch.nn.functional

from palaestra.train.core.optim import AdamStep  # noqa: E402
from palaestra.train.dqn import (  # noqa: E402
    COMPILED_INPUT,
    DQN,
    ChunkedTargetValues,
    DQNGradients,
    compiled_kernels,
    huber,
)
from palaestra.train.offpolicy import NARROW_INPUT, ReplayBuffer, relu_mlp  # noqa: E402

BATCH = 16
OBS_DIM = 4
N_ACTIONS = 3
needs_numba = pytest.mark.skipif(compiled_kernels() is None, reason="numba is not installed")
PATHS = [pytest.param(False, id="torch"), pytest.param(None, id="auto", marks=needs_numba)]
"""``DQNGradients(compiled=...)``: torch operations only, or the kernels wherever they apply."""


def dqn_loss(q_net, obs, actions, rewards, discount, next_obs, next_target, double_q):
    """The (double-)DQN Huber loss written plainly with autograd, as the reference."""
    with torch.no_grad():
        if double_q:
            best = q_net(next_obs).argmax(-1, keepdim=True)
            next_q = next_target.gather(-1, best).squeeze(-1)
        else:
            next_q = next_target.max(-1).values
        target = rewards + discount * next_q
    q = q_net(obs).gather(-1, actions).squeeze(-1)
    return F.smooth_l1_loss(q, target)


def make_dqn_batch(generator, reward_scale, obs_dim=OBS_DIM):
    obs = torch.randn(BATCH, obs_dim, generator=generator)
    next_obs = torch.randn(BATCH, obs_dim, generator=generator)
    actions = torch.randint(0, N_ACTIONS, (BATCH, 1), generator=generator)
    rewards = reward_scale * torch.randn(BATCH, generator=generator)
    discount = 0.99 * (torch.rand(BATCH, generator=generator) > 0.2).float()
    next_target = torch.randn(BATCH, N_ACTIONS, generator=generator)
    return obs, actions, rewards, discount, next_obs, next_target


def round_inputs(batch, double_q):
    """The arguments DQNGradients gets from a DQN round for one minibatch."""
    obs, actions, rewards, discount, next_obs, next_target = batch
    if double_q:
        inputs, next_values = torch.cat([obs, next_obs]), next_target
    else:
        inputs, next_values = obs, next_target.max(-1, keepdim=True).values
    return inputs, actions, rewards.unsqueeze(-1), discount.unsqueeze(-1), next_values


def hand_gradients(q_net, batch, double_q, compiled=None):
    """Run DQNGradients on one batch as the DQN round feeds it; return (errors, grads)."""
    params = list(q_net.parameters())
    errors = DQNGradients(params, double_q, compiled)(*round_inputs(batch, double_q))
    return errors, [p.grad.clone() for p in params]


def autograd_gradients(q_net, batch, double_q):
    """The reference loss and gradients of one batch, by autograd."""
    q_net.zero_grad(set_to_none=True)
    reference = dqn_loss(q_net, *batch, double_q=double_q)
    reference.backward()
    expected = [p.grad.clone() for p in q_net.parameters()]
    q_net.zero_grad(set_to_none=True)
    return float(reference.detach()), expected


@pytest.mark.parametrize("compiled", PATHS)
@pytest.mark.parametrize("double_q", [True, False])
@pytest.mark.parametrize("hidden_sizes", [(), (8,), (16, 16), (8, 8, 8)])
@pytest.mark.parametrize("reward_scale", [0.1, 10.0])  # Huber's quadratic and linear parts
def test_dqn_gradients_equal_autograd(compiled, double_q, hidden_sizes, reward_scale):
    torch.manual_seed(1)
    q_net = relu_mlp(OBS_DIM, hidden_sizes, N_ACTIONS)
    batch = make_dqn_batch(torch.Generator().manual_seed(7), reward_scale)
    loss, expected = autograd_gradients(q_net, batch, double_q)
    errors, grads = hand_gradients(q_net, batch, double_q, compiled)
    assert float(huber(errors)) == pytest.approx(loss, rel=1e-6)
    for grad, want in zip(grads, expected):
        torch.testing.assert_close(grad, want, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("compiled", PATHS)
@pytest.mark.parametrize("double_q", [True, False])
@pytest.mark.parametrize(
    "obs_dim",
    [
        pytest.param(COMPILED_INPUT + 1, id="first-layer-by-torch-and-numpy"),
        pytest.param(NARROW_INPUT + 1, id="first-layer-by-torch"),
    ],
)
def test_dqn_gradients_equal_autograd_for_wide_observations(compiled, double_q, obs_dim):
    torch.manual_seed(1)
    q_net = relu_mlp(obs_dim, (8, 8), N_ACTIONS)
    batch = make_dqn_batch(torch.Generator().manual_seed(7), 1.0, obs_dim)
    _, expected = autograd_gradients(q_net, batch, double_q)
    _, grads = hand_gradients(q_net, batch, double_q, compiled)
    for grad, want in zip(grads, expected):
        torch.testing.assert_close(grad, want, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("compiled", PATHS)
def test_dqn_gradients_write_the_errors_into_error_out(compiled):
    torch.manual_seed(1)
    q_net = relu_mlp(OBS_DIM, (8,), N_ACTIONS)
    batch = make_dqn_batch(torch.Generator().manual_seed(7), 1.0)
    expected, _ = hand_gradients(q_net, batch, True, compiled)
    error_out = torch.full((BATCH, 1), float("nan"))
    gradients = DQNGradients(list(q_net.parameters()), True, compiled)
    assert gradients(*round_inputs(batch, True), error_out) is error_out
    torch.testing.assert_close(error_out, expected)


@needs_numba
def test_dqn_gradients_repeated_calls_equal_fresh_ones():
    # The compiled path reuses its buffers from one call to the next.
    torch.manual_seed(1)
    q_net = relu_mlp(OBS_DIM, (8, 8), N_ACTIONS)
    gradients = DQNGradients(list(q_net.parameters()), True)
    for seed in (7, 8):
        batch = make_dqn_batch(torch.Generator().manual_seed(seed), 1.0)
        _, expected = autograd_gradients(q_net, batch, True)
        gradients(*round_inputs(batch, True))
        for p, want in zip(q_net.parameters(), expected):
            torch.testing.assert_close(p.grad, want, rtol=1e-5, atol=1e-6)


@needs_numba
def test_dqn_gradients_use_the_kernels_for_a_cpu_float32_mlp():
    q_net = relu_mlp(OBS_DIM, (8,), N_ACTIONS)
    assert DQNGradients(list(q_net.parameters()), True).kernels is not None
    assert DQNGradients(list(q_net.parameters()), True, compiled=False).kernels is None


def test_dqn_gradients_compiled_true_without_a_hidden_layer_is_an_error():
    q_net = relu_mlp(OBS_DIM, (), N_ACTIONS)
    with pytest.raises(ValueError, match="compiled=True needs numba"):
        DQNGradients(list(q_net.parameters()), True, compiled=True)


@pytest.mark.parametrize("compiled", PATHS)
@pytest.mark.parametrize("rows", [3, 4, 64])
@pytest.mark.parametrize("obs_dim", [OBS_DIM, COMPILED_INPUT + 1])
def test_chunked_target_values_equal_the_network(compiled, rows, obs_dim):
    torch.manual_seed(0)
    net = relu_mlp(obs_dim, (8, 8), N_ACTIONS)
    values = ChunkedTargetValues(list(net.parameters()), rows=rows, compiled=compiled)
    for leading in ((6, 5), (2, 3)):  # a second, smaller call reuses the buffers
        x = torch.randn(*leading, obs_dim)
        torch.testing.assert_close(values(x), net(x).detach(), rtol=1e-5, atol=1e-6)


def test_dqn_gradients_clip_scales_to_the_max_norm_and_returns_the_norm_before():
    torch.manual_seed(1)
    q_net = relu_mlp(OBS_DIM, (8,), N_ACTIONS)
    batch = make_dqn_batch(torch.Generator().manual_seed(7), 10.0)
    params = list(q_net.parameters())
    gradients = DQNGradients(params, double_q=False)
    obs, actions, rewards, discount, _, next_target = batch
    gradients(obs, actions, rewards[:, None], discount[:, None], next_target.max(-1)[0][:, None])
    before = float(torch.linalg.vector_norm(torch.cat([p.grad.flatten() for p in params])))
    assert gradients.clip_(before / 4) == pytest.approx(before, rel=1e-6)
    after = float(torch.linalg.vector_norm(torch.cat([p.grad.flatten() for p in params])))
    assert after == pytest.approx(before / 4, rel=1e-5)


def test_adam_step_is_bitwise_fused_adam():
    torch.manual_seed(0)
    net = relu_mlp(3, (8,), 2)
    twin = relu_mlp(3, (8,), 2)
    twin.load_state_dict(net.state_dict())
    reference = torch.optim.Adam(net.parameters(), lr=1e-2, fused=True)
    step = AdamStep(torch.optim.Adam(twin.parameters(), lr=1e-2, fused=True))
    for seed in range(4):
        x = torch.randn(5, 3, generator=torch.Generator().manual_seed(seed))
        for model in (net, twin):
            model.zero_grad(set_to_none=True)
            model(x).square().sum().backward()
        reference.step()
        step()
    for a, b in zip(net.parameters(), twin.parameters()):
        assert torch.equal(a, b)
    for a, b in zip(reference.state.values(), step.optimizer.state.values()):
        assert torch.equal(a["exp_avg_sq"], b["exp_avg_sq"]) and float(a["step"]) == 4.0


def test_adam_step_falls_back_for_unfused_adam():
    p = torch.nn.Parameter(torch.ones(2))
    optimizer = torch.optim.Adam([p], lr=0.1, amsgrad=True)
    step = AdamStep(optimizer)
    for _ in range(2):
        p.grad = torch.ones(2)
        step()
    assert float(optimizer.state[p]["step"]) == 2.0
    assert p.detach().tolist() == pytest.approx([0.8, 0.8])


def test_adam_step_counters_advance_once_per_step_through_a_fallback_step():
    params = [torch.nn.Parameter(torch.zeros(2)), torch.nn.Parameter(torch.zeros(3))]
    optimizer = torch.optim.Adam(params, lr=0.1, fused=True)
    step = AdamStep(optimizer)
    for p in params:
        p.grad = torch.ones_like(p)
    step()
    step()  # the fast step, on shared counters
    params[1].grad = None
    step()  # falls back to optimizer.step(), which skips the parameter without a gradient
    assert [float(optimizer.state[p]["step"]) for p in params] == [3.0, 2.0]


def test_adam_step_follows_a_loaded_optimizer_state():
    p = torch.nn.Parameter(torch.zeros(1))
    optimizer = torch.optim.Adam([p], lr=0.1, fused=True)
    step = AdamStep(optimizer)
    p.grad = torch.ones(1)
    step()
    saved = copy.deepcopy(optimizer.state_dict())
    step()
    optimizer.load_state_dict(saved)
    p.grad = torch.ones(1)
    step()
    assert float(optimizer.state[p]["step"]) == 2.0


@pytest.fixture
def filled_buffer():
    buffer = ReplayBuffer(10, 2, (), np.int64)
    obs = np.arange(12, dtype=np.float32).reshape(6, 2)
    buffer.add(
        obs, np.arange(6), obs[:, 0] * 10, obs + 100, np.arange(6) % 2 == 0, np.ones(6, bool)
    )
    return buffer


def test_sample_batches_rows_are_stored_transitions(filled_buffer):
    obs, actions, rewards, next_obs, terminated = filled_buffer.sample_batches(
        3, 8, np.random.default_rng(0)
    )
    assert tuple(obs.shape) == (3, 8, 2) and actions.dtype == torch.int64
    torch.testing.assert_close(obs[..., 0], actions.float() * 2)
    torch.testing.assert_close(rewards, obs[..., 0] * 10)
    torch.testing.assert_close(next_obs, obs + 100)
    torch.testing.assert_close(terminated, (actions % 2 == 0).float())


def test_sample_batches_draws_only_filled_rows(filled_buffer):
    _, actions, *_ = filled_buffer.sample_batches(50, 20, np.random.default_rng(1))
    assert set(actions.unique().tolist()) == set(range(6))


def test_replay_buffer_state_keeps_the_action_dtype(filled_buffer):
    state = filled_buffer.state()
    assert state["actions"].dtype == torch.int64
    assert state["actions"].tolist() == list(range(6))


def test_replay_buffer_rejects_multi_dimensional_actions():
    with pytest.raises(ValueError, match=r"action_shape must be \(\) or \(k,\), got \(2, 2\)"):
        ReplayBuffer(4, 1, (2, 2), np.float32)


def test_dqn_config_fast_path_is_on_by_default():
    agent = DQN("MlpPolicy", "CartPole-v1", hidden_sizes=(8,))
    assert agent.config.fast_path is True
    assert dataclasses.replace(agent.config, fast_path=False).fast_path is False
