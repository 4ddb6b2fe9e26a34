"""The off-policy speed-ups compute what the plain versions compute.

- ``dqn_gradients`` (hand-written double-DQN gradients) equals autograd on the same batch.
- ``AdamStep`` is bit-for-bit ``torch.optim.Adam(fused=True).step()``.
- ``ReplayBuffer.sample_batches`` draws rows that are stored transitions, consistently.
"""

import copy
import dataclasses

import numpy as np
import pytest

torch = pytest.importorskip("torch")
F = torch.nn.functional

from palaestra.train.dqn import DQN, dqn_gradients  # noqa: E402
from palaestra.train.offpolicy import AdamStep, ReplayBuffer, relu_mlp  # noqa: E402

BATCH = 16
OBS_DIM = 4
N_ACTIONS = 3


def double_dqn_loss(q_net, obs, actions, rewards, discount, next_obs, next_target):
    """The double-DQN Huber loss written plainly with autograd, as the reference."""
    with torch.no_grad():
        best = q_net(next_obs).argmax(-1, keepdim=True)
        target = rewards + discount * next_target.gather(-1, best).squeeze(-1)
    q = q_net(obs).gather(-1, actions).squeeze(-1)
    return F.smooth_l1_loss(q, target)


def make_dqn_batch(generator, reward_scale):
    obs = torch.randn(BATCH, OBS_DIM, generator=generator)
    next_obs = torch.randn(BATCH, OBS_DIM, generator=generator)
    actions = torch.randint(0, N_ACTIONS, (BATCH, 1), generator=generator)
    rewards = reward_scale * torch.randn(BATCH, generator=generator)
    discount = 0.99 * (torch.rand(BATCH, generator=generator) > 0.2).float()
    next_target = torch.randn(BATCH, N_ACTIONS, generator=generator)
    return obs, actions, rewards, discount, next_obs, next_target


@pytest.mark.parametrize("hidden_sizes", [(), (8,), (16, 16), (8, 8, 8)])
@pytest.mark.parametrize("reward_scale", [0.1, 10.0])  # Huber's quadratic and linear parts
def test_dqn_gradients_equal_autograd(hidden_sizes, reward_scale):
    generator = torch.Generator().manual_seed(7)
    torch.manual_seed(1)
    q_net = relu_mlp(OBS_DIM, hidden_sizes, N_ACTIONS)
    obs, actions, rewards, discount, next_obs, next_target = make_dqn_batch(generator, reward_scale)
    reference = double_dqn_loss(q_net, obs, actions, rewards, discount, next_obs, next_target)
    reference.backward()
    expected = [p.grad.clone() for p in q_net.parameters()]
    params = list(q_net.parameters())
    loss = dqn_gradients(
        params, torch.cat([obs, next_obs]), actions, rewards, discount, next_target
    )
    assert float(loss.detach()) == pytest.approx(float(reference), rel=1e-6)
    for param, grad in zip(params, expected):
        torch.testing.assert_close(param.grad, grad, rtol=1e-5, atol=1e-6)


def test_dqn_fast_path_round_matches_autograd_round():
    hp = dict(learning_starts=64, batch_size=16, gradient_steps=4, hidden_sizes=(16,), seed=2)
    fast, slow = (DQN("MlpPolicy", "CartPole-v1", fast_path=f, **hp) for f in (True, False))
    for agent in (fast, slow):
        agent.learn(64, progress_bar=False)  # same seed: same transitions, no update yet
        agent._train()
    for a, b in zip(fast.q_net.parameters(), slow.q_net.parameters()):
        torch.testing.assert_close(a, b, rtol=1e-5, atol=1e-6)
    assert fast._last["loss"] == pytest.approx(slow._last["loss"], rel=1e-5)


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
