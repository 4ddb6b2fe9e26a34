"""Wrappers that change an environment's observations, actions, rewards or rendering.

Members are imported on first access, so wrappers that need optional dependencies (torch,
jax, imageio, pygame) cost nothing until used.

Example:
    >>> import palaestra as gym
    >>> env = gym.wrappers.TimeLimit(gym.make("CartPole-v1").unwrapped, max_episode_steps=10)
    >>> env
    <TimeLimit<CartPoleEnv<CartPole-v1>>>
"""

from palaestra._lazy import lazy_attributes

_LOCATIONS = {
    # common
    "TimeLimit": "common",
    "Autoreset": "common",
    "PassiveEnvChecker": "common",
    "OrderEnforcing": "common",
    "RecordEpisodeStatistics": "common",
    # observation
    "TransformObservation": "transform_observation",
    "FilterObservation": "transform_observation",
    "FlattenObservation": "transform_observation",
    "GrayscaleObservation": "transform_observation",
    "ResizeObservation": "transform_observation",
    "ReshapeObservation": "transform_observation",
    "RescaleObservation": "transform_observation",
    "DtypeObservation": "transform_observation",
    "DiscretizeObservation": "transform_observation",
    "NormalizeObservation": "stateful_observation",
    "TimeAwareObservation": "stateful_observation",
    "FrameStackObservation": "stateful_observation",
    "DelayObservation": "stateful_observation",
    "MaxAndSkipObservation": "stateful_observation",
    # action
    "TransformAction": "transform_action",
    "ClipAction": "transform_action",
    "RescaleAction": "transform_action",
    "DiscretizeAction": "transform_action",
    "StickyAction": "stateful_action",
    "RepeatAction": "stateful_action",
    # reward
    "TransformReward": "transform_reward",
    "ClipReward": "transform_reward",
    "NormalizeReward": "stateful_reward",
    # rendering
    "RecordVideo": "rendering",
    "HumanRendering": "rendering",
    "RenderCollection": "rendering",
    "AddRenderObservation": "transform_observation",
    "AddWhiteNoise": "rendering",
    "ObstructView": "rendering",
    # Atari
    "AtariPreprocessing": "atari_preprocessing",
    # array conversion
    "ArrayConversion": "array_conversion",
    "NumpyToTorch": "numpy_to_torch",
    "JaxToNumpy": "jax_to_numpy",
    "JaxToTorch": "jax_to_torch",
    # subpackage
    "vector": "vector",
}

__all__ = sorted(_LOCATIONS)
_lazy_getattr, __dir__ = lazy_attributes(__name__, _LOCATIONS)

# Wrappers Gymnasium renamed in 1.0: asking for the old name says what it became.
_RENAMED = {
    "AutoResetWrapper": "Autoreset",
    "FrameStack": "FrameStackObservation",
    "PixelObservationWrapper": "AddRenderObservation",
    "VectorListInfo": "vector.DictInfoToList",
}


def __getattr__(name: str) -> object:
    """Import a wrapper on first access; a renamed wrapper's old name names its new one.

    Raises:
        AttributeError: for an unknown name, or an old name (with the new one).

    Example:
        >>> import palaestra.wrappers
        >>> palaestra.wrappers.FrameStack
        Traceback (most recent call last):
            ...
        AttributeError: 'FrameStack' has been renamed with `wrappers.FrameStackObservation`
    """
    if name in _RENAMED:
        raise AttributeError(f"{name!r} has been renamed with `wrappers.{_RENAMED[name]}`")
    return _lazy_getattr(name)
