"""Rendering of MuJoCo environments: offscreen frames and a window, at Gymnasium's path.

:class:`MujocoRenderer` picks a viewer per render mode: :class:`OffScreenViewer` draws
``rgb_array``, ``depth_array`` and ``rgbd_tuple`` frames into an OpenGL context of the
backend that ``MUJOCO_GL`` names (``egl`` or ``osmesa`` run without a display; unset, the
first that works of ``glfw``, ``egl`` and ``osmesa``); :class:`WindowViewer` shows ``human``
frames in a GLFW window, which needs a display.

Example:
    >>> import mujoco
    >>> from palaestra.envs.mujoco.models import build_model
    >>> model = build_model("inverted_pendulum.xml")
    >>> renderer = MujocoRenderer(model, mujoco.MjData(model), width=64, height=48)
    >>> renderer.camera_id
    -1
"""

from __future__ import annotations

import os
from typing import Any

import mujoco
import numpy as np

__all__ = ["BaseRender", "MujocoRenderer", "OffScreenViewer", "WindowViewer"]

_RENDER_MODES = ("human", "rgb_array", "depth_array", "rgbd_tuple")


def _context(backend: str, width: int, height: int) -> Any:
    if backend == "egl":
        from mujoco.egl import GLContext
    elif backend == "osmesa":
        from mujoco.osmesa import GLContext
    else:
        from mujoco.glfw import GLContext
    return GLContext(width, height)


def _offscreen_context(width: int, height: int) -> tuple[str, Any]:
    """Make an OpenGL context of ``MUJOCO_GL``'s backend, or the first that works.

    Raises:
        RuntimeError: for an unknown ``MUJOCO_GL`` or when no backend works.
    """
    backends = ("glfw", "egl", "osmesa")
    chosen = os.environ.get("MUJOCO_GL")
    if chosen is not None:
        if chosen not in backends:
            raise RuntimeError(
                f"Environment variable MUJOCO_GL must be one of {backends!r}: got {chosen!r}. "
                "Use 'egl' or 'osmesa' without a display."
            )
        return chosen, _context(chosen, width, height)
    failures = []
    for backend in backends:
        if backend == "glfw" and not _has_display():
            continue
        try:
            return backend, _context(backend, width, height)
        except Exception as failure:
            failures.append(f"{backend}: {failure}")
    raise RuntimeError(
        "No OpenGL backend could be imported. Attempting to create a rendering context "
        f"will result in a RuntimeError ({'; '.join(failures)}). Without a display, install "
        "EGL or OSMesa (Debian: libegl1 libgl1-mesa-dri, or libosmesa6) and set MUJOCO_GL."
    )


def _has_display() -> bool:
    """Whether a window can be opened: always off Linux, else with an X or Wayland display."""
    if not os.sys.platform.startswith("linux"):
        return True
    return bool(os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"))


class BaseRender:
    """The scene, camera and options a viewer draws with, and its markers and overlays.

    Subclasses make the OpenGL context current and choose the framebuffer.

    Args:
        model: the model.
        data: its data (read when drawing).
        width: frame width.
        height: frame height.
        max_geom: the most geoms a frame draws.
        visual_options: ``mjtVisFlag`` -> bool render flags.
    """

    def __init__(
        self,
        model: mujoco.MjModel,
        data: mujoco.MjData,
        width: int,
        height: int,
        max_geom: int = 1000,
        visual_options: dict[int, bool] | None = None,
    ):
        self.model = model
        self.data = data
        self._markers: list[dict] = []
        self._overlays: dict[int, tuple[str, str]] = {}
        self.viewport = mujoco.MjrRect(0, 0, width, height)
        self.scn = mujoco.MjvScene(model, max_geom)
        self.cam = mujoco.MjvCamera()
        self.vopt = mujoco.MjvOption()
        self.pert = mujoco.MjvPerturb()
        for flag, value in (visual_options or {}).items():
            self.vopt.flags[flag] = value
        self.make_context_current()
        self.con = mujoco.MjrContext(model, mujoco.mjtFontScale.mjFONTSCALE_150)
        self._set_mujoco_buffer()

    def _set_mujoco_buffer(self) -> None:
        raise NotImplementedError

    def make_context_current(self) -> None:
        """Make this viewer's OpenGL context the current one."""
        raise NotImplementedError

    def add_overlay(self, gridpos: int, text1: str, text2: str) -> None:
        """Show two columns of text at ``gridpos`` (an ``mjtGridPos``) on the next frames."""
        if gridpos not in self._overlays:
            self._overlays[gridpos] = ("", "")
        left, right = self._overlays[gridpos]
        self._overlays[gridpos] = (left + text1 + "\n", right + text2 + "\n")

    def add_marker(self, **marker_params: Any) -> None:
        """Draw a marker geom on the next frame (``type``, ``size``, ``pos``, ``mat``, ``rgba``)."""
        self._markers.append(marker_params)

    def _add_markers(self) -> None:
        for marker in self._markers:
            if self.scn.ngeom >= self.scn.maxgeom:
                raise RuntimeError(f"Ran out of geoms. maxgeom: {self.scn.maxgeom}")
            geom = self.scn.geoms[self.scn.ngeom]
            mujoco.mjv_initGeom(
                geom,
                marker.get("type", mujoco.mjtGeom.mjGEOM_SPHERE),
                np.asarray(marker.get("size", (0.1, 0.1, 0.1)), dtype=np.float64),
                np.asarray(marker.get("pos", (0.0, 0.0, 0.0)), dtype=np.float64),
                np.asarray(marker.get("mat", np.eye(3)), dtype=np.float64).ravel(),
                np.asarray(marker.get("rgba", (1.0, 1.0, 1.0, 1.0)), dtype=np.float32),
            )
            self.scn.ngeom += 1

    def _draw(self) -> None:
        mujoco.mjv_updateScene(
            self.model,
            self.data,
            self.vopt,
            self.pert,
            self.cam,
            mujoco.mjtCatBit.mjCAT_ALL,
            self.scn,
        )
        self._add_markers()
        mujoco.mjr_render(self.viewport, self.scn, self.con)
        for gridpos, (left, right) in self._overlays.items():
            mujoco.mjr_overlay(
                mujoco.mjtFontScale.mjFONTSCALE_150,
                gridpos,
                self.viewport,
                left.encode(),
                right.encode(),
                self.con,
            )
        self._markers.clear()
        self._overlays.clear()


class OffScreenViewer(BaseRender):
    """Draws frames into an offscreen buffer and reads them back as arrays.

    Args:
        model: the model.
        data: its data (read when drawing).
        width: frame width.
        height: frame height.
        max_geom: the most geoms a frame draws.
        visual_options: ``mjtVisFlag`` -> bool render flags.

    Raises:
        RuntimeError: when no OpenGL backend can make a context.
    """

    def __init__(
        self,
        model: mujoco.MjModel,
        data: mujoco.MjData,
        width: int,
        height: int,
        max_geom: int = 1000,
        visual_options: dict[int, bool] | None = None,
    ):
        self.backend, self.opengl_context = _offscreen_context(width, height)
        super().__init__(model, data, width, height, max_geom, visual_options)
        # The free camera looks at the median geom from the model's extent.
        self.cam.type = mujoco.mjtCamera.mjCAMERA_FREE
        self.cam.fixedcamid = -1
        for axis in range(3):
            self.cam.lookat[axis] = np.median(self.data.geom_xpos[:, axis])
        self.cam.distance = self.model.stat.extent

    def _set_mujoco_buffer(self) -> None:
        mujoco.mjr_setBuffer(mujoco.mjtFramebuffer.mjFB_OFFSCREEN, self.con)

    def make_context_current(self) -> None:
        """Make this viewer's OpenGL context the current one."""
        self.opengl_context.make_current()

    def render(self, render_mode: str | None, camera_id: int | None = None) -> Any:
        """Draw a frame from ``camera_id`` and return it as ``render_mode`` asks.

        Returns:
            ``(H, W, 3)`` uint8 for ``"rgb_array"``, ``(H, W)`` float32 depth for
            ``"depth_array"``, both as a tuple for ``"rgbd_tuple"``.
        """
        if camera_id is not None:
            self.cam.type = (
                mujoco.mjtCamera.mjCAMERA_FREE
                if camera_id == -1
                else mujoco.mjtCamera.mjCAMERA_FIXED
            )
            self.cam.fixedcamid = camera_id
        self._draw()
        height, width = self.viewport.height, self.viewport.width
        rgb = np.zeros(3 * width * height, dtype=np.uint8)
        depth = np.zeros(width * height, dtype=np.float32)
        mujoco.mjr_readPixels(rgb, depth, self.viewport, self.con)
        # OpenGL rows run bottom-up.
        rgb_image = rgb.reshape(height, width, 3)[::-1]
        depth_image = depth.reshape(height, width)[::-1]
        if render_mode == "rgb_array":
            return rgb_image
        if render_mode == "depth_array":
            return depth_image
        return rgb_image, depth_image

    def free(self) -> None:
        """Release the OpenGL context."""
        if getattr(self, "opengl_context", None) is not None:
            self.opengl_context.free()
            self.opengl_context = None

    def close(self) -> None:
        """Release the OpenGL context."""
        self.free()


class WindowViewer(BaseRender):
    """Shows frames in a GLFW window (``human`` mode).

    Args:
        model: the model.
        data: its data.
        width: window width (``None``: half the screen).
        height: window height (``None``: half the screen).
        max_geom: the most geoms a frame draws.
        visual_options: ``mjtVisFlag`` -> bool render flags.

    Raises:
        RuntimeError: without a display, or when GLFW cannot open a window.
    """

    def __init__(
        self,
        model: mujoco.MjModel,
        data: mujoco.MjData,
        width: int | None = None,
        height: int | None = None,
        max_geom: int = 1000,
        visual_options: dict[int, bool] | None = None,
    ):
        if not _has_display():
            raise RuntimeError(
                "render_mode='human' opens a window and needs a display, but neither DISPLAY "
                "nor WAYLAND_DISPLAY is set. Run under a display (e.g. `xvfb-run python ...`), "
                "or render frames offscreen with render_mode='rgb_array' and MUJOCO_GL=egl "
                "or MUJOCO_GL=osmesa."
            )
        import glfw

        if not glfw.init():
            raise RuntimeError(
                "GLFW could not be initialised, so no window can be opened for "
                "render_mode='human'; check the display, or use render_mode='rgb_array'."
            )
        if width is None or height is None:
            mode = glfw.get_video_mode(glfw.get_primary_monitor())
            width, height = mode.size.width // 2, mode.size.height // 2
        glfw.window_hint(glfw.VISIBLE, 1)
        self.window = glfw.create_window(width, height, "mujoco", None, None)
        if not self.window:
            glfw.terminate()
            raise RuntimeError(
                "GLFW could not create a window for render_mode='human'; check the display."
            )
        self._glfw = glfw
        framebuffer_width, framebuffer_height = glfw.get_framebuffer_size(self.window)
        super().__init__(
            model, data, framebuffer_width, framebuffer_height, max_geom, visual_options
        )
        glfw.swap_interval(1)

    def _set_mujoco_buffer(self) -> None:
        mujoco.mjr_setBuffer(mujoco.mjtFramebuffer.mjFB_WINDOW, self.con)

    def make_context_current(self) -> None:
        """Make the window's OpenGL context the current one."""
        self._glfw.make_context_current(self.window)

    def render(self) -> None:
        """Draw the current state into the window and process its events."""
        if self.window is None:
            return
        if self._glfw.window_should_close(self.window):
            self.close()
            return
        self.viewport.width, self.viewport.height = self._glfw.get_framebuffer_size(self.window)
        self._draw()
        self._glfw.swap_buffers(self.window)
        self._glfw.poll_events()

    def free(self) -> None:
        """Close the window."""
        if getattr(self, "window", None) is not None:
            if self._glfw.get_current_context() == self.window:
                self._glfw.make_context_current(None)
            self._glfw.destroy_window(self.window)
            self.window = None

    def close(self) -> None:
        """Close the window and release GLFW."""
        self.free()
        self._glfw.terminate()


class MujocoRenderer:
    """The renderer of a MuJoCo environment: one viewer per render mode, made on first use.

    Args:
        model: the model.
        data: its data.
        default_cam_config: attributes of the free camera (``distance``, ``lookat``,
            ``elevation``, ``azimuth``, ``trackbodyid``, ``type``, ...).
        width: frame width.
        height: frame height.
        max_geom: the most geoms a frame draws.
        camera_id: the camera to render from (``-1``: the free camera).
        camera_name: the camera to render from, by name.
        visual_options: ``mjtVisFlag`` -> bool render flags.

    Without a camera, frames come from the free camera set up by ``default_cam_config``.

    Raises:
        ValueError: if both ``camera_id`` and ``camera_name`` are given.
    """

    def __init__(
        self,
        model: mujoco.MjModel,
        data: mujoco.MjData,
        default_cam_config: dict | None = None,
        width: int | None = None,
        height: int | None = None,
        max_geom: int = 1000,
        camera_id: int | None = None,
        camera_name: str | None = None,
        visual_options: dict[int, bool] | None = None,
    ):
        self.model = model
        self.data = data
        self._viewers: dict[str, Any] = {}
        self.viewer: Any = None
        self.default_cam_config = default_cam_config
        self.width = width
        self.height = height
        self.max_geom = max_geom
        self._vopt = visual_options or {}
        if camera_id is not None and camera_name is not None:
            raise ValueError(
                "Both `camera_id` and `camera_name` cannot be specified at the same time."
            )
        if camera_id is not None:
            self.camera_id = camera_id
        elif camera_name is not None:
            self.camera_id = mujoco.mj_name2id(model, mujoco.mjtObj.mjOBJ_CAMERA, camera_name)
        else:
            self.camera_id = -1

    def render(self, render_mode: str | None) -> Any:
        """Render a frame as ``render_mode`` asks (``None`` for ``"human"``).

        Raises:
            AttributeError: for an unknown render mode.
            AssertionError: for offscreen modes without a width and height.
            RuntimeError: when no OpenGL context or window can be made.
        """
        if render_mode != "human" and (self.width is None or self.height is None):
            raise AssertionError(
                f"The width: {self.width} and height: {self.height} cannot be `None` when "
                "the render_mode is not `human`."
            )
        viewer = self._get_viewer(render_mode)
        if render_mode == "human":
            return viewer.render()
        return viewer.render(render_mode=render_mode, camera_id=self.camera_id)

    def _get_viewer(self, render_mode: str | None) -> Any:
        self.viewer = self._viewers.get(render_mode)
        if self.viewer is None:
            if render_mode not in _RENDER_MODES:
                raise AttributeError(
                    f"Unexpected mode: {render_mode}, expected modes: human, rgb_array, "
                    "depth_array, or rgbd_tuple"
                )
            kind = WindowViewer if render_mode == "human" else OffScreenViewer
            self.viewer = kind(
                self.model, self.data, self.width, self.height, self.max_geom, self._vopt
            )
            self._set_cam_config()
            self._viewers[render_mode] = self.viewer
        if len(self._viewers) > 1:
            self.viewer.make_context_current()
        return self.viewer

    def _set_cam_config(self) -> None:
        for key, value in (self.default_cam_config or {}).items():
            if isinstance(value, np.ndarray):
                getattr(self.viewer.cam, key)[:] = value
            else:
                setattr(self.viewer.cam, key, value)

    def close(self) -> None:
        """Close every viewer."""
        for viewer in self._viewers.values():
            viewer.close()
        self._viewers.clear()
        self.viewer = None
