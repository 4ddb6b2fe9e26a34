"""SAC's hand-written gradient step computes what autograd computes for SAC's losses.

``SACGradients`` (``SACConfig.fast_path=True``, the default) against the plain autograd
losses on the same batch and the same noise: the samples, the critic target, the critic
gradients, the actor gradients (through both critics, the ``tanh`` squashing, the
log-probability and the ``log_std`` clamp); that whole training rounds equal autograd on
``SAC.critic_loss``/``SAC.actor_loss`` is ``test_backends.py``'s.
Each check runs both ways of computing the step: torch operations (``compiled=False``) and
the numba kernels (``compiled=True``, skipped without numba).
"""

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from palaestra.train._mlp_kernels import COMPILED_INPUT  # noqa: E402
from palaestra.train.offpolicy import NARROW_INPUT  # noqa: E402
from palaestra.train.sac import SAC, SACConfig  # noqa: E402
from palaestra.train.sac_gradients import SACGradients, compiled_kernels  # noqa: E402
from palaestra.train.sac_networks import (  # noqa: E402
    SquashedGaussianActor,
    TwinCritic,
    squashed_sample,
)

BATCH = 16
ENT_COEF = torch.tensor([0.3])


def make_networks(obs_dim, action_dim, hidden_sizes, log_std_bias=0.0, q2_offset=0.0):
    """An actor, critics and a distinct target, from a fixed seed."""
    torch.manual_seed(3)
    actor = SquashedGaussianActor(obs_dim, action_dim, hidden_sizes)
    critic = TwinCritic(obs_dim + action_dim, hidden_sizes)
    target = TwinCritic(obs_dim + action_dim, hidden_sizes)
    with torch.no_grad():
        actor.log_std.bias.add_(log_std_bias)
        critic.q2[-1].bias.add_(q2_offset)
    return actor, critic, target


def make_batch(obs_dim, action_dim):
    generator = torch.Generator().manual_seed(11)
    obs = torch.randn(BATCH, obs_dim, generator=generator)
    next_obs = torch.randn(BATCH, obs_dim, generator=generator)
    actions = torch.rand(BATCH, action_dim, generator=generator) * 2 - 1
    rewards = torch.randn(BATCH, generator=generator)
    discount = 0.99 * (torch.rand(BATCH, generator=generator) > 0.2).float()
    return obs, actions, rewards, next_obs, discount


def grads_of(module):
    return [p.grad.clone() for p in module.parameters()]


def assert_all_close(got, want, rtol=1e-5, atol=1e-6):
    for a, b in zip(got, want, strict=True):
        torch.testing.assert_close(a, b, rtol=rtol, atol=atol)


# Where tanh saturates, d log_prob / d action = 2a / (1 - a^2 + 1e-6) magnifies float32
# rounding differences between two correct orders of operations.
SATURATED = dict(rtol=1e-4, atol=1e-5)
# log(1 - tanh(u)^2 + 1e-6) in float32 amplifies one rounding of tanh (the compiled loops
# call the C library's tanh, exp and log, torch its vectorized ones) by 2 a^2 / (1 - a^2).
LOG_PROB = dict(rtol=1e-4, atol=2e-5)


@pytest.fixture(params=[False, True], ids=["torch-ops", "compiled"])
def compiled(request):
    """Whether SACGradients runs the numba kernels (skipped without numba)."""
    if request.param and compiled_kernels() is None:
        pytest.skip("numba is not installed")
    return request.param


def make_gradients(actor, critic, target, compiled):
    """SACGradients; ``compiled`` on inputs too wide for the kernels runs torch operations."""
    wide = critic.q1[0].in_features > COMPILED_INPUT
    return SACGradients(actor, critic, target, compiled=False if wide else compiled)


SHAPES = [
    pytest.param(3, 1, (8,), id="pendulum-like-one-layer"),
    pytest.param(3, 1, (16, 16), id="pendulum-like-two-layers"),
    pytest.param(5, 3, (8, 8, 8), id="three-actions-three-layers"),
    pytest.param(NARROW_INPUT + 1, 2, (8,), id="wide-observations"),
    pytest.param(COMPILED_INPUT - 1, 1, (8, 8), id="widest-compiled-inputs"),
]


@pytest.mark.parametrize("mean_shift", [0.0, 8.0], ids=["moderate", "saturated-tanh"])
def test_actor_gradients_equal_autograd_where_tanh_saturates_or_not(mean_shift, compiled):
    actor, critic, target = make_networks(3, 1, (8,))
    with torch.no_grad():
        actor.mu.bias.add_(mean_shift)
    obs, _, _, next_obs, _ = make_batch(3, 1)
    _, want = actor_reference(actor, critic, obs)
    actor.zero_grad(set_to_none=True)
    _, got = hand_actor_gradients(actor, critic, target, obs, next_obs, compiled)
    assert_all_close(got, want, **(SATURATED if mean_shift else {}))


def test_squashed_log_prob_is_the_gaussians_less_sb3s_tanh_correction():
    generator = torch.Generator().manual_seed(4)
    mean = 3 * torch.randn(64, 2, generator=generator)  # some tanh saturate
    log_std = torch.randn(64, 2, generator=generator)
    noise = torch.randn(64, 2, generator=generator)
    action, log_prob, pre_tanh = squashed_sample(mean, log_std, noise)
    gaussian = torch.distributions.Normal(mean, log_std.exp()).log_prob(pre_tanh).sum(-1)
    want = gaussian - torch.log(1 - action.square() + 1e-6).sum(-1)
    torch.testing.assert_close(log_prob, want, rtol=1e-5, atol=1e-5)
    torch.testing.assert_close(action, torch.tanh(mean + log_std.exp() * noise))


@pytest.mark.parametrize(("obs_dim", "action_dim", "hidden_sizes"), SHAPES)
def test_sample_equals_two_actor_samples_with_the_same_noise(
    obs_dim, action_dim, hidden_sizes, compiled
):
    actor, critic, target = make_networks(obs_dim, action_dim, hidden_sizes)
    obs, _, _, next_obs, _ = make_batch(obs_dim, action_dim)
    torch.manual_seed(5)
    with torch.no_grad():
        want = (*actor.sample(obs), *actor.sample(next_obs))
    torch.manual_seed(5)
    got = make_gradients(actor, critic, target, compiled).sample(obs, next_obs)
    assert_all_close(got[0::2], want[0::2])  # actions
    assert_all_close(got[1::2], want[1::2], **LOG_PROB)


@pytest.mark.parametrize(("obs_dim", "action_dim", "hidden_sizes"), SHAPES)
def test_target_is_reward_plus_discounted_soft_minimum_of_target_critics(
    obs_dim, action_dim, hidden_sizes, compiled
):
    actor, critic, target = make_networks(obs_dim, action_dim, hidden_sizes)
    _, _, rewards, next_obs, discount = make_batch(obs_dim, action_dim)
    with torch.no_grad():
        next_actions, next_log_probs = actor.sample(next_obs)
        soft = target(next_obs, next_actions).min(0).values - ENT_COEF * next_log_probs
        want = rewards + discount * soft
    gradients = make_gradients(actor, critic, target, compiled)
    got = gradients.target(next_obs, next_actions, next_log_probs, rewards, discount, ENT_COEF)
    torch.testing.assert_close(got, want, rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize(("obs_dim", "action_dim", "hidden_sizes"), SHAPES)
def test_critic_gradients_equal_autograd(obs_dim, action_dim, hidden_sizes, compiled):
    actor, critic, target = make_networks(obs_dim, action_dim, hidden_sizes)
    obs, actions, rewards, _, _ = make_batch(obs_dim, action_dim)
    q_target = rewards * 3.0
    reference = 0.5 * (critic(obs, actions) - q_target).square().mean(1).sum()
    reference.backward()
    want = grads_of(critic)
    critic.zero_grad(set_to_none=True)
    gradients = make_gradients(actor, critic, target, compiled)
    loss = gradients.critic_gradients(obs, actions, q_target)
    assert float(loss) == pytest.approx(float(reference.detach()), rel=1e-6)
    assert_all_close(grads_of(critic), want)


def test_critic_gradients_keep_a_non_finite_target_in_the_loss(compiled):
    actor, critic, target = make_networks(3, 1, (8, 8))
    obs, actions, rewards, _, _ = make_batch(3, 1)
    q_target = rewards.clone()
    q_target[3] = float("nan")
    gradients = make_gradients(actor, critic, target, compiled)
    loss = gradients.critic_gradients(obs, actions, q_target)
    assert np.isnan(float(loss))
    assert np.isnan(float(critic.q1[-1].bias.grad)) and np.isnan(float(critic.q2[-1].bias.grad))


def actor_reference(actor, critic, obs):
    """The actor loss written plainly with autograd (critic weights detached); its grads."""
    torch.manual_seed(5)
    actions, log_probs = actor.sample(obs)
    q_pi = critic(obs, actions, detach_weights=True).min(0).values
    loss = (ENT_COEF * log_probs - q_pi).mean()
    loss.backward()
    return float(loss.detach()), grads_of(actor)


def hand_actor_gradients(actor, critic, target, obs, next_obs, compiled):
    torch.manual_seed(5)
    gradients = make_gradients(actor, critic, target, compiled)
    gradients.sample(obs, next_obs)
    loss = gradients.actor_gradients(obs, ENT_COEF)
    return float(loss), grads_of(actor)


@pytest.mark.parametrize(("obs_dim", "action_dim", "hidden_sizes"), SHAPES)
def test_actor_gradients_equal_autograd(obs_dim, action_dim, hidden_sizes, compiled):
    actor, critic, target = make_networks(obs_dim, action_dim, hidden_sizes)
    obs, _, _, next_obs, _ = make_batch(obs_dim, action_dim)
    want_loss, want = actor_reference(actor, critic, obs)
    actor.zero_grad(set_to_none=True)
    loss, got = hand_actor_gradients(actor, critic, target, obs, next_obs, compiled)
    # the loss is ent_coef * mean(log_prob) - ...: the log-probability's tolerance, scaled
    assert loss == pytest.approx(want_loss, rel=1e-6, abs=float(ENT_COEF) * LOG_PROB["atol"])
    assert_all_close(got, want)


@pytest.mark.parametrize("log_std_bias", [5.0, -25.0], ids=["above-max", "below-min"])
def test_actor_gradients_stop_at_the_log_std_clamp_as_autograd(log_std_bias, compiled):
    actor, critic, target = make_networks(3, 2, (8,), log_std_bias=log_std_bias)
    obs, _, _, next_obs, _ = make_batch(3, 2)
    _, want = actor_reference(actor, critic, obs)
    actor.zero_grad(set_to_none=True)
    _, got = hand_actor_gradients(actor, critic, target, obs, next_obs, compiled)
    assert_all_close(got, want, **SATURATED)
    assert float(actor.log_std.bias.grad.abs().sum()) == 0.0  # clamped everywhere


@pytest.mark.parametrize("q2_offset", [100.0, -100.0], ids=["q1-always-lower", "q2-always-lower"])
def test_actor_gradients_equal_autograd_when_one_critic_is_always_the_minimum(q2_offset, compiled):
    actor, critic, target = make_networks(3, 1, (8, 8), q2_offset=q2_offset)
    obs, _, _, next_obs, _ = make_batch(3, 1)
    _, want = actor_reference(actor, critic, obs)
    actor.zero_grad(set_to_none=True)
    _, got = hand_actor_gradients(actor, critic, target, obs, next_obs, compiled)
    assert_all_close(got, want)


def gradient_step(gradients, batch):
    """One SACGradients step's calls, in the training order; return their outputs."""
    obs, actions, rewards, next_obs, discount = batch
    _, log_probs, next_actions, next_log_probs = gradients.sample(obs, next_obs)
    q_target = gradients.target(next_obs, next_actions, next_log_probs, rewards, discount, ENT_COEF)
    critic_loss = gradients.critic_gradients(obs, actions, q_target)
    return log_probs, critic_loss, gradients.actor_gradients(obs, ENT_COEF)


def test_gradient_step_builds_no_autograd_graph(compiled):
    gradients = SACGradients(*make_networks(3, 1, (8,)), compiled=compiled)
    for value in gradient_step(gradients, make_batch(3, 1)):
        assert value.grad_fn is None


def test_gradient_steps_reuse_their_buffers(compiled):
    gradients = SACGradients(*make_networks(3, 1, (8,)), compiled=compiled)
    batch = make_batch(3, 1)
    gradient_step(gradients, batch)
    first = {name: buffer.data_ptr() for name, buffer in gradients._buffers.items()}
    gradient_step(gradients, batch)
    assert {name: buffer.data_ptr() for name, buffer in gradients._buffers.items()} == first


def test_sac_gradients_reject_an_actor_without_hidden_layers():
    actor, critic, target = make_networks(3, 1, ())
    with pytest.raises(ValueError, match="at least one hidden layer"):
        SACGradients(actor, critic, target)


def test_sac_gradients_compiled_true_for_inputs_wider_than_the_kernels_take_is_an_error():
    actor, critic, target = make_networks(COMPILED_INPUT, 1, (8,))
    with pytest.raises(ValueError, match=f"at most {COMPILED_INPUT} observation and action"):
        SACGradients(actor, critic, target, compiled=True)


def test_sac_gradients_default_to_torch_operations_for_wide_inputs():
    assert not SACGradients(*make_networks(COMPILED_INPUT, 1, (8,))).compiled


def test_sac_gradients_default_to_the_kernels_for_narrow_cpu_float32_networks():
    expected = compiled_kernels() is not None
    assert SACGradients(*make_networks(3, 1, (8,))).compiled is expected


def test_sac_agent_trains_through_the_kernels_when_numba_is_installed():
    agent = SAC("MlpPolicy", "Pendulum-v1", learning_starts=16, batch_size=8, hidden_sizes=(8,))
    agent.learn(24, progress_bar=False)
    assert agent._gradients.compiled is (compiled_kernels() is not None)
    assert all(np.isfinite(p.detach().numpy()).all() for p in agent.actor.parameters())


def test_sac_without_hidden_layers_trains_through_autograd():
    agent = SAC("MlpPolicy", "Pendulum-v1", hidden_sizes=(), learning_starts=16, batch_size=8)
    agent.learn(24, progress_bar=False)
    assert agent._gradients is None and agent.num_updates == 8


def test_sac_config_fast_path_is_on_by_default():
    assert SACConfig().fast_path is True


HP = dict(learning_starts=64, batch_size=16, gradient_steps=3, hidden_sizes=(16, 16), seed=2)


@pytest.mark.parametrize("fast_path", [True, False], ids=["fast-path", "autograd"])
def test_sac_losses_use_the_entropy_coefficient_from_before_its_update(fast_path):
    agent = SAC("MlpPolicy", "Pendulum-v1", fast_path=fast_path, **{**HP, "gradient_steps": 1})
    agent.learn(64, progress_bar=False)
    agent._train()  # the first update: the coefficient used is the initial 1.0, as in SB3
    assert agent._last["ent_coef"] == 1.0
    assert agent.ent_coef() != 1.0
