"""Wrappers for vector environments: batched transforms, statistics and rendering.

Members are imported on first access.

Example:
    >>> import palaestra as gym
    >>> envs = gym.make_vec("CartPole-v1", num_envs=2, vectorization_mode="sync")
    >>> gym.wrappers.vector.ClipReward(envs, min_reward=0.0, max_reward=0.5)
    <ClipReward, SyncVectorEnv(CartPole-v1, num_envs=2)>
"""

from palaestra._lazy import lazy_attributes

_LOCATIONS = {
    "VectorizeTransformObservation": "vectorize_observation",
    "VectorizeTransformAction": "vectorize_action",
    "VectorizeTransformReward": "vectorize_reward",
    "DictInfoToList": "dict_info_to_list",
    "TransformObservation": "vectorize_observation",
    "FilterObservation": "vectorize_observation",
    "FlattenObservation": "vectorize_observation",
    "GrayscaleObservation": "vectorize_observation",
    "ResizeObservation": "vectorize_observation",
    "ReshapeObservation": "vectorize_observation",
    "RescaleObservation": "vectorize_observation",
    "DtypeObservation": "vectorize_observation",
    "NormalizeObservation": "stateful_observation",
    "TransformAction": "vectorize_action",
    "ClipAction": "vectorize_action",
    "RescaleAction": "vectorize_action",
    "TransformReward": "vectorize_reward",
    "ClipReward": "vectorize_reward",
    "NormalizeReward": "stateful_reward",
    "RecordEpisodeStatistics": "common",
    "RecordVideo": "rendering",
    "HumanRendering": "rendering",
    "ArrayConversion": "array_conversion",
    "NumpyToTorch": "numpy_to_torch",
    "JaxToNumpy": "jax_to_numpy",
    "JaxToTorch": "jax_to_torch",
}

__all__ = sorted(_LOCATIONS)
__getattr__, __dir__ = lazy_attributes(__name__, _LOCATIONS)
