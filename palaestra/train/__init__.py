"""Training toolkit: from an environment to a trained, evaluated, reproducible policy.

Needs PyTorch (``pip install torch==2.13.0``, then ``pip install "palaestra[train]"``);
members are imported on first access, so ``import palaestra.train`` itself is cheap.

- :class:`PPO` / :class:`PPOConfig`: PPO on vector envs (GAE, clipped surrogate and value
  losses, entropy bonus, minibatch epochs, gradient clipping, learning-rate annealing,
  observation/reward normalization saved with the model).
- :class:`Reinforce` / :class:`ReinforceConfig`: Monte-Carlo policy gradient.
- :func:`evaluate`, :func:`save_agent`, :func:`load_policy`: evaluation and checkpoints.
- :class:`DiagnosticsWrapper`, :class:`TrainingMonitor`: failure-mode detection.
- :func:`run_training`: everything ``palaestra train`` does.

Troubleshooting checklist (each item is a check of :mod:`palaestra.train.diagnostics`):

1. non-finite or out-of-space observations -> fix the dynamics or the declared bounds,
   normalize observations;
2. non-finite or out-of-space actions -> clip or squash the policy output;
3. non-finite rewards -> guard the reward's divisions and logs, clip/normalize rewards;
4. NaN loss or exploding gradient norm -> lower the learning rate, normalize inputs and
   rewards, clip gradients;
5. a ``step`` that never returns -> ``DiagnosticsWrapper(env, step_timeout=...)`` turns it
   into an error; look for loops or blocking I/O in the env.

Example:
    >>> from palaestra.train import PPO, PPOConfig
    >>> agent = PPO("CartPole-v1", PPOConfig(num_envs=2, n_steps=8, batch_size=16))
    >>> agent.learn(total_steps=16)[-1]["steps"]
    16
"""

from palaestra._lazy import lazy_attributes

_LOCATIONS = {
    "PPO": "ppo",
    "PPOConfig": "ppo",
    "Reinforce": "reinforce",
    "ReinforceConfig": "reinforce",
    "ReinforceResult": "reinforce",
    "evaluate": "evaluation",
    "save_agent": "checkpoint",
    "load_policy": "checkpoint",
    "TrainedPolicy": "checkpoint",
    "DiagnosticsWrapper": "diagnostics",
    "VectorDiagnosticsWrapper": "diagnostics",
    "TrainingMonitor": "diagnostics",
    "DiagnosticsError": "diagnostics",
    "DiagnosticsWarning": "diagnostics",
    "RunSettings": "runner",
    "run_training": "runner",
    "discounted_returns": "returns",
    "normalize_per_episode": "returns",
    "gae_advantages": "returns",
}

__all__ = sorted(_LOCATIONS)
__getattr__, __dir__ = lazy_attributes(__name__, _LOCATIONS)
