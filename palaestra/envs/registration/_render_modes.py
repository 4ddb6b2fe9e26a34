"""Which render mode ``make`` builds an env with, and which wrapper adds the mode asked for."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from palaestra import error, logger


def declared_render_modes(env_creator: Callable) -> Any:
    """Return the creator's ``metadata["render_modes"]``, or ``None`` when it declares none.

    Raises:
        palaestra.error.InvalidMetadata: the creator's ``metadata`` is not a dict.
    """
    if not hasattr(env_creator, "metadata"):
        return None
    metadata = env_creator.metadata
    # A wrapper class exposes ``metadata`` as a property: nothing to check before building.
    if isinstance(metadata, property):
        return None
    _check_metadata(metadata)
    return metadata.get("render_modes")


def _check_metadata(metadata: Any) -> None:
    if not isinstance(metadata, dict):
        raise error.InvalidMetadata(
            f"Expect the environment metadata to be dict, actual type: {type(metadata)}"
        )
    render_modes = metadata.get("render_modes")
    if render_modes is None:
        logger.warn(
            "The environment creator metadata doesn't include `render_modes`, "
            f"contains: {list(metadata.keys())}"
        )
    elif not isinstance(render_modes, Iterable):
        logger.warn(
            "Expects the environment metadata render_modes to be a Iterable, "
            f"actual type: {type(render_modes)}"
        )


def plan_rendering(render_mode: str | None, render_modes: Any) -> tuple[str | None, str | None]:
    """Pick the render mode to build the env with and the wrapper that provides the asked one.

    Args:
        render_mode: the mode asked of ``make``, or ``None``.
        render_modes: the modes the env declares, or ``None`` when it declares none.

    Returns:
        ``(render_mode for the constructor, "HumanRendering" | "RenderCollection" | None)``.

    Example:
        >>> plan_rendering("rgb_array_list", ["rgb_array"])
        ('rgb_array', 'RenderCollection')
    """
    if render_mode is None or render_modes is None or render_mode in render_modes:
        return render_mode, None
    displayable = [mode for mode in ("rgb_array", "rgb_array_list") if mode in render_modes]
    if render_mode == "human" and displayable:
        logger.warn(
            "You are trying to use 'human' rendering for an environment that doesn't natively "
            "support it. The HumanRendering wrapper is being applied to your environment."
        )
        return displayable[0], "HumanRendering"
    if render_mode.endswith("_list") and render_mode.removesuffix("_list") in render_modes:
        return render_mode.removesuffix("_list"), "RenderCollection"
    logger.warn(
        f"The environment is being initialised with render_mode={render_mode!r} "
        f"that is not in the possible render_modes ({render_modes})."
    )
    return render_mode, None
