"""Shared builders of training data for the tests of palaestra.train."""

import numpy as np
import torch


def ppo_batch(agent, generator, size=16):
    """A minibatch with ratios and values moved outside the clip ranges."""
    obs_dim = int(np.prod(agent.observation_space.shape))
    observations = torch.randn(size, obs_dim, generator=generator)
    with torch.no_grad():
        actions, log_probs, _, values = agent.policy.get_action_and_value(observations)
    return (
        observations,
        actions,
        log_probs + 0.4 * torch.randn(size, generator=generator),
        values + 0.5 * torch.randn(size, generator=generator),
        torch.randn(size, generator=generator),
        torch.randn(size, generator=generator),
    )
