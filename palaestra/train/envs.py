"""Building and inspecting the vector envs that training runs on.

Training envs are stacked as ``make_vec(...)`` -> :class:`EpisodeTracker` (raw episode
returns, before any reward normalization) -> ``NormalizeObservation`` ->
``NormalizeReward``. The normalizers' running statistics are read out with
:func:`normalization_state` and put back with :func:`load_normalization_state`, so an
evaluated or resumed policy sees observations scaled exactly as during training.
"""

from __future__ import annotations

from collections import deque
from typing import Any

import numpy as np

from palaestra.vector import VectorEnv, VectorWrapper
from palaestra.vector.episodes import AutoresetMode, EpisodeMasks, autoreset_mode

NEXT_STEP = "NEXT_STEP"


def autoreset_mode_name(env: Any) -> str:
    """Return the autoreset mode of a vector env as an upper-case name, e.g. ``"NEXT_STEP"``.

    The mode is read by :func:`palaestra.vector.episodes.autoreset_mode`; an env that does
    not declare one follows the default, ``NEXT_STEP``.

    Raises:
        TypeError: if the env declares a mode that is not an ``AutoresetMode`` member.

    Example:
        >>> import palaestra as gym
        >>> autoreset_mode_name(gym.make_vec("CartPole-v1", num_envs=2))
        'NEXT_STEP'
    """
    return autoreset_mode(env, default=AutoresetMode.NEXT_STEP).name


def require_autoreset_mode(env: Any, mode: str, user: str) -> None:
    """Raise ``ValueError`` unless ``env`` uses autoreset ``mode``.

    Args:
        env: a vector env.
        mode: the required mode's name, e.g. ``"NEXT_STEP"``.
        user: who needs it, for the message.

    Raises:
        ValueError: naming the env's mode and how to fix it.

    Example:
        >>> import palaestra as gym
        >>> require_autoreset_mode(gym.make_vec("CartPole-v1", num_envs=1), "NEXT_STEP", "PPO")
    """
    actual = autoreset_mode_name(env)
    if actual != mode:
        raise ValueError(
            f"{user} needs a vector env with autoreset mode {mode}, got {actual}; build it "
            f"with vector_kwargs={{'autoreset_mode': AutoresetMode.{mode}}} or the default mode."
        )


class EpisodeTracker(VectorWrapper):
    """Records the undiscounted return and length of every finished episode.

    Placed directly on the vector env (below any reward normalization) it sees raw rewards.
    Episode boundaries come from :class:`palaestra.vector.episodes.EpisodeMasks` for the
    env's autoreset mode: with ``NEXT_STEP`` the reset step after an episode end is not
    counted. Finished episodes are appended to :attr:`returns` and :attr:`lengths`.

    Args:
        env: the vector env.
        window: how many finished episodes to keep.

    Example:
        >>> import palaestra as gym
        >>> envs = EpisodeTracker(gym.make_vec("CartPole-v1", num_envs=2))
        >>> _ = envs.reset(seed=0)
        >>> for _ in range(60):
        ...     _ = envs.step(envs.action_space.sample())
        >>> len(envs.returns) > 0
        True
    """

    env: Any  # the wrapped env (typed loosely: any env or vector env)

    def __init__(self, env: VectorEnv, window: int = 100):
        super().__init__(env)
        self.returns: deque[float] = deque(maxlen=window)
        self.lengths: deque[int] = deque(maxlen=window)
        self.episodes = 0
        self._running_return = np.zeros(self.num_envs)
        self._running_length = np.zeros(self.num_envs, dtype=np.int64)
        self.masks = EpisodeMasks.of(env)

    def reset(self, *, seed: Any = None, options: dict | None = None) -> tuple[Any, dict]:
        """Reset the env and forget unfinished episodes (of the reset rows)."""
        reset_mask = (options or {}).get("reset_mask")
        rows = slice(None) if reset_mask is None else np.asarray(reset_mask, dtype=bool)
        self._running_return[rows] = 0.0
        self._running_length[rows] = 0
        self.masks.reset(reset_mask)
        return self.env.reset(seed=seed, options=options)

    def step(self, actions: Any) -> tuple[Any, Any, Any, Any, dict]:
        """Step the env and record the episodes that end on this step."""
        observations, rewards, terminated, truncated, info = self.env.step(actions)
        masks = self.masks.step(terminated, truncated)
        self._running_return += np.where(masks.valid, rewards, 0.0)
        self._running_length += masks.valid
        done = masks.ends
        if done.any():
            for index in np.flatnonzero(done):
                self.returns.append(float(self._running_return[index]))
                self.lengths.append(int(self._running_length[index]))
            self.episodes += int(done.sum())
            self._running_return[done] = 0.0
            self._running_length[done] = 0
        return observations, rewards, terminated, truncated, info


def find_wrapper(env: Any, wrapper_name: str) -> Any | None:
    """Return the outermost wrapper named ``wrapper_name`` around ``env``, or ``None``.

    Example:
        >>> import palaestra as gym
        >>> envs = EpisodeTracker(gym.make_vec("CartPole-v1", num_envs=1))
        >>> type(find_wrapper(envs, "EpisodeTracker")).__name__
        'EpisodeTracker'
    """
    while env is not None:
        if type(env).__name__ == wrapper_name:
            return env
        env = getattr(env, "env", None)
    return None


def make_training_env(env_id: Any, config: Any, num_envs: int | None = None, **kwargs: Any) -> Any:
    """Make (or wrap) the vector env a trainer runs on.

    An id uses :func:`palaestra.make_vec`'s default vectorization, which is the env's
    natively batched implementation when it registers one. A ready-made vector env is used
    as it is (wrapped for diagnostics when asked), and a single env becomes a one-env
    ``SyncVectorEnv``; neither gets normalization wrappers.

    Args:
        env_id: a registered env id (``"module:Env-v0"`` imports ``module`` first), a
            vector env or a single env.
        config: an object with ``num_envs``, ``normalize_observation`` (applied to float
            ``Box`` observations only: not to images, integers or ``Dict``/``Tuple`` spaces),
            ``normalize_reward``, ``gamma`` and ``window`` attributes (e.g. a ``PPOConfig``);
            with a true ``diagnostics`` attribute (or a ``step_timeout``) the sub-envs are
            checked by a ``DiagnosticsWrapper``.
        num_envs: overrides ``config.num_envs``.
        **kwargs: passed to the env constructor.

    Returns:
        The wrapped vector env.

    Example:
        >>> from palaestra.train.ppo import PPOConfig
        >>> envs = make_training_env("CartPole-v1", PPOConfig(num_envs=3))
        >>> envs.num_envs
        3
    """
    from palaestra import make_vec
    from palaestra.wrappers.vector import NormalizeObservation, NormalizeReward

    if not isinstance(env_id, str):
        envs = as_vector_env(env_id)
        if getattr(config, "diagnostics", False) or getattr(config, "step_timeout", None):
            from palaestra.train.diagnostics import DiagnosticsWrapper

            envs = DiagnosticsWrapper(envs, step_timeout=config.step_timeout)
        return envs
    envs = make_vec(env_id, num_envs=num_envs or config.num_envs, **kwargs)
    if getattr(config, "diagnostics", False) or getattr(config, "step_timeout", None):
        from palaestra.train.diagnostics import DiagnosticsWrapper

        envs = DiagnosticsWrapper(envs, step_timeout=config.step_timeout)
    envs = EpisodeTracker(envs, window=config.window)
    if config.normalize_observation and _normalizable(envs.single_observation_space):
        envs = NormalizeObservation(envs)
    if config.normalize_reward:
        envs = NormalizeReward(envs, gamma=config.gamma)
    return envs


def _normalizable(space: Any) -> bool:
    """Tell whether running mean/std normalization applies: float ``Box`` spaces only."""
    if type(space).__name__ != "Box":
        return False
    return np.dtype(space.dtype).kind == "f"


def normalization_state(env: Any) -> dict[str, dict[str, Any]]:
    """Return the running statistics of the env's normalization wrappers, as arrays.

    Returns:
        ``{"observation": {...}}`` and/or ``{"reward": {...}}``, each with ``mean``,
        ``var`` and ``count``; empty when the env is not normalized.

    Example:
        >>> import palaestra as gym
        >>> normalization_state(gym.make_vec("CartPole-v1", num_envs=1))
        {}
    """
    state = {}
    for key, wrapper_name, attribute in _NORMALIZERS:
        wrapper = find_wrapper(env, wrapper_name)
        if wrapper is not None:
            rms = getattr(wrapper, attribute)
            state[key] = {
                "mean": np.array(rms.mean, dtype=np.float64),
                "var": np.array(rms.var, dtype=np.float64),
                "count": float(rms.count),
            }
    return state


_NORMALIZERS = (
    ("observation", "NormalizeObservation", "obs_rms"),
    ("reward", "NormalizeReward", "return_rms"),
)


def load_normalization_state(
    env: Any, state: dict[str, dict[str, Any]], freeze: bool = True
) -> Any:
    """Wrap ``env`` so it normalizes observations with saved statistics.

    Only observation statistics matter when acting; reward statistics are kept in the
    checkpoint for resuming training.

    Args:
        env: a vector env.
        state: what :func:`normalization_state` returned.
        freeze: stop the statistics from updating (what evaluation wants).

    Returns:
        ``env`` itself when there is nothing to restore, else the wrapped env.

    Example:
        >>> import palaestra as gym
        >>> state = {"observation": {"mean": np.zeros(4), "var": np.ones(4), "count": 1.0}}
        >>> envs = load_normalization_state(gym.make_vec("CartPole-v1", num_envs=1), state)
        >>> type(envs).__name__
        'NormalizeObservation'
    """
    saved = state.get("observation")
    if saved is None:
        return env
    from palaestra.wrappers.vector import NormalizeObservation

    wrapped = NormalizeObservation(env)
    rms = wrapped.obs_rms
    rms.mean = np.array(saved["mean"], dtype=np.float64)
    rms.var = np.array(saved["var"], dtype=np.float64)
    rms.count = saved["count"]
    if freeze:
        wrapped.update_running_mean = False
    return wrapped


def as_vector_env(env: Any) -> Any:
    """Return ``env`` if it is a vector env, else a one-env ``SyncVectorEnv`` stepping it.

    Raises:
        TypeError: if ``env`` is neither a vector env nor a single env.

    Example:
        >>> import palaestra as gym
        >>> as_vector_env(gym.make("CartPole-v1")).num_envs
        1
    """
    if hasattr(env, "num_envs") and hasattr(env, "single_action_space"):
        return env
    if not (hasattr(env, "step") and hasattr(env, "action_space")):
        raise TypeError(
            f"Expected an env id, a vector env or an env, got {type(env).__name__}: {env!r}."
        )
    from palaestra.vector import SyncVectorEnv

    vector = SyncVectorEnv([lambda: env])
    return vector


def restore_normalization(env: Any, state: dict[str, dict[str, Any]]) -> None:
    """Put saved running statistics back into the env's normalization wrappers, in place.

    Statistics of a wrapper the env does not have are ignored; the wrappers keep updating.

    Example:
        >>> import palaestra as gym
        >>> from palaestra.wrappers.vector import NormalizeObservation
        >>> envs = NormalizeObservation(gym.make_vec("CartPole-v1", num_envs=1))
        >>> restore_normalization(envs, {"observation": {"mean": np.ones(4), "var": np.ones(4),
        ...                                              "count": 5.0}})
        >>> envs.obs_rms.count
        5.0
    """
    for key, wrapper_name, attribute in _NORMALIZERS:
        saved = state.get(key)
        wrapper = find_wrapper(env, wrapper_name)
        if saved is None or wrapper is None:
            continue
        rms = getattr(wrapper, attribute)
        rms.mean = np.array(saved["mean"], dtype=np.float64)
        rms.var = np.array(saved["var"], dtype=np.float64)
        rms.count = float(saved["count"])
