"""Registers the MuJoCo environments (imported by :mod:`palaestra.envs`).

The v4 and v5 ids of Gymnasium, with its time limits and reward thresholds; each id's
``vector_entry_point`` is the natively batched :class:`~palaestra.envs.mujoco.vector.
MujocoVectorEnv`. (The mujoco-py v2/v3 ids are registered by :mod:`._stub_ids`.)

Example:
    >>> import palaestra as gym
    >>> spec = gym.spec("Ant-v5")
    >>> spec.max_episode_steps, spec.reward_threshold
    (1000, 6000.0)
"""

from palaestra.envs.registration import register

# (name, module, max_episode_steps, reward_threshold), as Gymnasium 1.4 registers them.
_MUJOCO = (
    ("Reacher", "reacher", 50, -3.75),
    ("Pusher", "pusher", 100, 0.0),
    ("InvertedPendulum", "inverted_pendulum", 1000, 950.0),
    ("InvertedDoublePendulum", "inverted_double_pendulum", 1000, 9100.0),
    ("HalfCheetah", "half_cheetah", 1000, 4800.0),
    ("Hopper", "hopper", 1000, 3800.0),
    ("Swimmer", "swimmer", 1000, 360.0),
    ("Walker2d", "walker2d", 1000, None),
    ("Ant", "ant", 1000, 6000.0),
    ("Humanoid", "humanoid", 1000, None),
    ("HumanoidStandup", "humanoidstandup", 1000, None),
)

for _name, _module, _steps, _threshold in _MUJOCO:
    for _version in ("v4", "v5"):
        register(
            id=f"{_name}-{_version}",
            entry_point=f"palaestra.envs.mujoco.{_module}_{_version}:{_name}Env",
            vector_entry_point=f"palaestra.envs.mujoco.vector:{_name}_{_version}",
            max_episode_steps=_steps,
            reward_threshold=_threshold,
        )
