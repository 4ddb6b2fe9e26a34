"""The PPO update's analytic gradients equal autograd's on the same loss."""

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from palaestra.spaces import Box, Discrete  # noqa: E402
from palaestra.train.distributions import make_head  # noqa: E402
from palaestra.train.networks import ActorCritic  # noqa: E402
from palaestra.train.ppo import PPOConfig, _value_loss_and_gradient  # noqa: E402

BATCH = 16


def ppo_loss(model, head, batch, cfg):
    """The PPO loss written plainly with autograd, as the reference."""
    obs, actions, old_log_probs, old_values, advantages, returns = batch
    out, values = model(obs)
    log_probs, entropy = head.log_prob_entropy(out, actions)
    ratio = (log_probs - old_log_probs).exp()
    clipped = ratio.clamp(1 - cfg.clip_range, 1 + cfg.clip_range)
    policy_loss = -torch.minimum(advantages * ratio, advantages * clipped).mean()
    if cfg.clip_range_vf is None:
        value_loss = ((values - returns) ** 2).mean()
    else:
        change = (values - old_values).clamp(-cfg.clip_range_vf, cfg.clip_range_vf)
        value_loss = torch.maximum(
            (values - returns) ** 2, (old_values + change - returns) ** 2
        ).mean()
    return policy_loss + cfg.vf_coef * value_loss - cfg.ent_coef * entropy.mean()


def analytic_gradients(model, head, batch, cfg):
    obs, actions, old_log_probs, old_values, advantages, returns = batch
    with torch.no_grad():
        activations = model.forward_activations(obs)
        policy_out, values = model.split_output(activations[-1])
        log_probs, _, cache = head.evaluate(policy_out, actions)
        ratio = (log_probs - old_log_probs).exp()
        unclipped = advantages * ratio
        clipped = advantages * ratio.clamp(1 - cfg.clip_range, 1 + cfg.clip_range)
        ratio_grad = advantages * (unclipped <= clipped) * (-1.0 / BATCH)
        _, value_grad = _value_loss_and_gradient(values, old_values, returns, cfg.clip_range_vf)
        policy_grad = head.output_gradient(cache, ratio_grad * ratio, -cfg.ent_coef / BATCH)
        model.backward(activations, policy_grad, value_grad * cfg.vf_coef)
    return [p.grad.clone() for p in [*model.parameters(), *head.parameters()]]


def make_batch(model, head, discrete, generator):
    obs = torch.randn(BATCH, 3, generator=generator)
    with torch.no_grad():
        out, values = model(obs)
        actions, log_probs = head.sample(out)
    # Old log-probs and values moved so that some ratios and values fall outside the clips.
    old_log_probs = log_probs + 0.4 * torch.randn(BATCH, generator=generator)
    old_values = values + 0.5 * torch.randn(BATCH, generator=generator)
    advantages = torch.randn(BATCH, generator=generator)
    returns = torch.randn(BATCH, generator=generator)
    return obs, actions, old_log_probs, old_values, advantages, returns


@pytest.mark.parametrize(
    "space, squash",
    [
        (Discrete(4), False),
        (Box(-2.0, 2.0, (2,)), False),
        (Box(-2.0, 2.0, (2,)), True),
    ],
    ids=["categorical", "gaussian", "squashed"],
)
@pytest.mark.parametrize("clip_range_vf", [None, 0.2])
@pytest.mark.parametrize("hidden_sizes", [(8,), (8, 6, 5)])
def test_analytic_gradient_equals_autograd(space, squash, clip_range_vf, hidden_sizes):
    torch.manual_seed(0)
    generator = torch.Generator().manual_seed(1)
    head = make_head(space, squash=squash)
    model = ActorCritic(3, head.num_outputs, hidden_sizes)
    # Larger output weights than the 0.01 init, so the policy is far from uniform.
    with torch.no_grad():
        model.weights[-1][0].mul_(100.0)
    cfg = PPOConfig(ent_coef=0.05, vf_coef=0.7, clip_range=0.1, clip_range_vf=clip_range_vf)
    batch = make_batch(model, head, isinstance(space, Discrete), generator)

    expected_loss = ppo_loss(model, head, batch, cfg)
    expected_loss.backward()
    parameters = [*model.parameters(), *head.parameters()]
    expected = [p.grad.clone() for p in parameters]
    for p in parameters:
        p.grad = None
    actual = analytic_gradients(model, head, batch, cfg)

    for got, want in zip(actual, expected, strict=True):
        np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-4, atol=1e-6)
