"""Training toolkit: from an environment to a trained, evaluated, reproducible policy.

Needs PyTorch (``pip install torch==2.13.0``, then ``pip install "palaestra[train]"``);
members are imported on first access, so ``import palaestra.train`` itself is cheap.

- :class:`PPO` / :class:`PPOConfig`: PPO on vector envs (GAE, clipped surrogate and value
  losses, entropy bonus, minibatch epochs, gradient clipping, learning-rate annealing,
  observation/reward normalization saved with the model), training any torch policy
  module (:mod:`palaestra.train.policies`: MLP, CNN, multi-input, or your own).
- :class:`DQN` / :class:`DQNConfig`: double DQN with a target network, replay and an
  epsilon schedule; :class:`SAC` / :class:`SACConfig`: soft actor-critic with twin critics,
  automatic entropy tuning and a tanh-squashed Gaussian.
- :class:`Reinforce` / :class:`ReinforceConfig`: Monte-Carlo policy gradient.
- An SB3-shaped API: ``Algo(policy, env_or_id, **hyper_parameters)``, ``.learn`` (returns
  the agent; the statistics are in ``.history``),
  ``.predict`` (one observation or a batch), ``.save`` / ``Algo.load``; defaults are the
  env's preset (:mod:`palaestra.train.presets`), the same ``palaestra train`` uses.
- :func:`evaluate`, :func:`save_agent`, :func:`load_policy`: evaluation and checkpoints
  (atomic saves; loading never imports code named in a file).
- :class:`DiagnosticsWrapper`, :class:`TrainingMonitor`: failure-mode detection.
- :func:`run_training`: everything ``palaestra train`` does.
- :mod:`palaestra.train.core`: the base layer the algorithms are built on (the
  :class:`~palaestra.train.core.agent.Agent` skeleton, the shared
  :class:`~palaestra.train.core.config.CommonConfig`, the algorithm registry); each
  algorithm's loss is one method (``PPO.loss``, ...) that a subclass may override.

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
    >>> from palaestra.train import PPO
    >>> agent = PPO("MlpPolicy", "CartPole-v1", num_envs=2, n_steps=8, batch_size=16)
    >>> agent.learn(total_timesteps=16, progress_bar=False).history[-1]["steps"]
    16
"""

from palaestra._lazy import lazy_attributes

_LOCATIONS = {
    "PPO": "ppo",
    "PPOConfig": "ppo",
    "DQN": "dqn",
    "DQNConfig": "dqn",
    "SAC": "sac",
    "SACConfig": "sac",
    "CheckpointError": "checkpoint",
    "NonFiniteError": "diagnostics",
    "ActorCriticPolicy": "policies",
    "Policy": "policies",
    "make_policy": "policies",
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
