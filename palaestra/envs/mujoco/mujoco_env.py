"""The base class of MuJoCo environments, at Gymnasium's path and with its interface.

Users' own MuJoCo environments written against Gymnasium's ``MujocoEnv`` run unchanged on
this one: the same constructor, ``do_simulation``, ``set_state``, ``state_vector``,
``get_body_com``, ``reset_model`` and ``_get_reset_info`` hooks, ``dt`` and rendering.

A ``model_path`` names a built-in model (``"ant.xml"``, built in code by
:mod:`palaestra.envs.mujoco.models`) or, starting with ``/``, ``.`` or ``~``, a user's
MJCF file.

Example:
    >>> import numpy as np
    >>> from palaestra import spaces
    >>> class Slider(MujocoEnv):
    ...     metadata = {"render_modes": ["rgb_array"], "render_fps": 50}
    ...     def __init__(self, **kwargs):
    ...         space = spaces.Box(-np.inf, np.inf, (4,), np.float64)
    ...         MujocoEnv.__init__(self, "inverted_pendulum.xml", 1, space, **kwargs)
    ...     def reset_model(self):
    ...         self.set_state(self.init_qpos, self.init_qvel)
    ...         return self.state_vector()
    ...     def step(self, action):
    ...         self.do_simulation(action, self.frame_skip)
    ...         return self.state_vector(), 0.0, False, False, {}
    >>> env = Slider()
    >>> obs, _ = env.reset(seed=0)
    >>> obs.tolist()
    [0.0, 0.0, 0.0, 0.0]
    >>> env.step(np.array([1.0], dtype=np.float32))[0][2] > 0
    np.True_
"""

from __future__ import annotations

import os
from typing import Any

import numpy as np
from numpy.typing import NDArray

from palaestra import error, spaces
from palaestra.core import Env
from palaestra.spaces import Space

try:
    import mujoco
except ImportError as e:  # pragma: no cover - the mujoco extra is installed in tests
    raise error.DependencyNotInstalled(
        'MuJoCo is not installed, run `pip install "palaestra[mujoco]"`'
    ) from e

__all__ = ["DEFAULT_SIZE", "MujocoEnv", "expand_model_path"]

DEFAULT_SIZE = 480
# Where Gymnasium keeps model files; ours are built in code, so nothing lives here.
_ASSETS = os.path.join(os.path.dirname(__file__), "assets")


def expand_model_path(model_path: str) -> str:
    """Return the path of a user's model file, or a built-in model's name unchanged.

    Paths starting with ``.`` or ``/`` are used as given, ``~`` is expanded; any other name
    must be a built-in model (see :data:`palaestra.envs.mujoco.models.MODEL_NAMES`).

    Raises:
        OSError: if the file does not exist (or the name is not a built-in model).

    Example:
        >>> expand_model_path("ant.xml")
        'ant.xml'
    """
    from palaestra.envs.mujoco.models import MODEL_NAMES

    if model_path.startswith(".") or model_path.startswith("/"):
        fullpath = model_path
    elif model_path.startswith("~"):
        fullpath = os.path.expanduser(model_path)
    elif model_path in MODEL_NAMES:
        return model_path
    else:
        fullpath = os.path.join(_ASSETS, model_path)
    if not os.path.exists(fullpath):
        raise OSError(f"File {fullpath} does not exist")
    return fullpath


def load_model(fullpath: str) -> mujoco.MjModel:
    """Compile a built-in model by name, or a user's MJCF file by path.

    Raises:
        ValueError: (from MuJoCo) if the file is not a valid model.

    Example:
        >>> load_model("swimmer.xml").nu
        2
    """
    from palaestra.envs.mujoco.models import MODEL_NAMES, build_model

    if fullpath in MODEL_NAMES:
        return build_model(fullpath)
    return mujoco.MjModel.from_xml_path(fullpath)


class MujocoEnv(Env[NDArray[np.float64], NDArray[np.float32]]):
    """Superclass of MuJoCo based environments.

    Args:
        model_path: a built-in model's name (``"hopper.xml"``) or a path to an MJCF file.
        frame_skip: physics steps per ``step()``.
        observation_space: the observation space (``None``: the subclass sets it later).
        render_mode: ``None``, ``"human"``, ``"rgb_array"``, ``"depth_array"`` or
            ``"rgbd_tuple"``.
        width: frame width; the offscreen buffer grows to it, never shrinks below the
            model's own size.
        height: frame height, likewise.
        camera_id: the camera to render from (``-1``: the free camera).
        camera_name: the camera to render from, by name (not with ``camera_id``).
        default_camera_config: attributes of the free camera (``distance``, ``lookat``, ...).
        max_geom: the most geoms a frame draws.
        visual_options: ``mjtVisFlag`` -> bool render flags.

    Raises:
        OSError: if ``model_path`` does not exist.
        ValueError: if both ``camera_id`` and ``camera_name`` are given.
        AssertionError: if ``metadata["render_fps"]`` disagrees with ``1 / dt``.
    """

    def __init__(
        self,
        model_path: str,
        frame_skip: int,
        observation_space: Space | None,
        render_mode: str | None = None,
        width: int = DEFAULT_SIZE,
        height: int = DEFAULT_SIZE,
        camera_id: int | None = None,
        camera_name: str | None = None,
        default_camera_config: dict[str, Any] | None = None,
        max_geom: int = 1000,
        visual_options: dict[int, bool] | None = None,
    ):
        self.fullpath = expand_model_path(model_path)
        self.width = width
        self.height = height
        self.model, self.data = self._initialize_simulation()
        self.init_qpos = self.data.qpos.ravel().copy()
        self.init_qvel = self.data.qvel.ravel().copy()
        self.frame_skip = frame_skip
        if "render_fps" in self.metadata:
            expected = int(np.round(1.0 / self.dt))
            if expected != self.metadata["render_fps"]:
                raise AssertionError(
                    f"Expected value: {expected}, Actual value: {self.metadata['render_fps']}"
                )
        if observation_space is not None:
            self.observation_space = observation_space
        self._set_action_space()
        self.render_mode = render_mode
        self.camera_name = camera_name
        self.camera_id = camera_id

        from palaestra.envs.mujoco.mujoco_rendering import MujocoRenderer

        self.mujoco_renderer = MujocoRenderer(
            self.model,
            self.data,
            default_camera_config,
            self.width,
            self.height,
            max_geom,
            camera_id,
            camera_name,
            visual_options,
        )

    def _set_action_space(self) -> spaces.Box:
        bounds = self.model.actuator_ctrlrange.copy().astype(np.float32)
        low, high = bounds.T
        self.action_space = spaces.Box(low=low, high=high, dtype=np.float32)
        return self.action_space

    def _initialize_simulation(self) -> tuple[mujoco.MjModel, mujoco.MjData]:
        """Compile the model and make its data; the offscreen buffer fits the frame size."""
        model = load_model(self.fullpath)
        model.vis.global_.offwidth = max(model.vis.global_.offwidth, self.width)
        model.vis.global_.offheight = max(model.vis.global_.offheight, self.height)
        return model, mujoco.MjData(model)

    def set_state(self, qpos: NDArray[np.float64], qvel: NDArray[np.float64]) -> None:
        """Set joint positions and velocities and recompute the derived quantities.

        Raises:
            AssertionError: if the shapes are not ``(nq,)`` and ``(nv,)``.
        """
        if qpos.shape != (self.model.nq,) or qvel.shape != (self.model.nv,):
            raise AssertionError(
                f"set_state expects qpos of shape {(self.model.nq,)} and qvel of shape "
                f"{(self.model.nv,)}, got {qpos.shape} and {qvel.shape}."
            )
        self.data.qpos[:] = np.copy(qpos)
        self.data.qvel[:] = np.copy(qvel)
        if self.model.na == 0:
            self.data.act[:] = None
        mujoco.mj_forward(self.model, self.data)

    def _step_mujoco_simulation(self, ctrl: Any, n_frames: int) -> None:
        """Apply ``ctrl`` and advance ``n_frames`` physics steps.

        Contact forces on bodies (``cfrc_ext``) are computed afterwards, as MuJoCo computes
        them only on request.
        """
        model, data = self.model, self.data
        data.ctrl[:] = ctrl
        mujoco.mj_step(model, data, n_frames)  # positional: cheaper than a keyword
        mujoco.mj_rnePostConstraint(model, data)

    def render(self) -> Any:
        """Render a frame in :attr:`render_mode` (``None`` in ``"human"`` mode)."""
        return self.mujoco_renderer.render(self.render_mode)

    def close(self) -> None:
        """Close the rendering contexts."""
        if self.mujoco_renderer is not None:
            self.mujoco_renderer.close()

    def get_body_com(self, body_name: str) -> NDArray[np.float64]:
        """Return the Cartesian position of body ``body_name``'s frame."""
        return self.data.body(body_name).xpos

    def reset(
        self, *, seed: int | None = None, options: dict | None = None
    ) -> tuple[NDArray[np.float64], dict[str, Any]]:
        """Reset the simulation and the episode; ``reset_model`` draws the initial state."""
        super().reset(seed=seed)
        mujoco.mj_resetData(self.model, self.data)
        observation = self.reset_model()
        info = self._get_reset_info()
        if self.render_mode == "human":
            self.render()
        return observation, info

    # The model whose options dt last read, and those options (a live view of the model's):
    # each access of MjModel.opt makes a new wrapper, and dt is read every step.
    _dt_model: mujoco.MjModel | None = None
    _dt_option: Any = None

    @property
    def dt(self) -> float:
        """Seconds of simulated time per ``step()``."""
        model = self.model
        if model is not self._dt_model:
            self._dt_model, self._dt_option = model, model.opt
        return self._dt_option.timestep * self.frame_skip

    def do_simulation(self, ctrl: Any, n_frames: int) -> None:
        """Advance ``n_frames`` physics steps under controls ``ctrl``.

        Raises:
            ValueError: if ``ctrl`` does not have shape ``(nu,)``.
        """
        # An array's own shape is read directly (np.shape costs more, and this runs per step).
        shape = ctrl.shape if isinstance(ctrl, np.ndarray) else np.shape(ctrl)
        if shape != (self.model.nu,):
            raise ValueError(
                f"Action dimension mismatch. Expected {(self.model.nu,)}, found {np.shape(ctrl)}"
            )
        self._step_mujoco_simulation(ctrl, n_frames)

    def state_vector(self) -> NDArray[np.float64]:
        """Return ``qpos`` and ``qvel`` concatenated."""
        return np.concatenate([self.data.qpos.flat, self.data.qvel.flat])

    # Hooks of subclasses --------------------------------------------------------------

    def step(self, action: NDArray[np.float32]) -> tuple[Any, Any, bool, bool, dict]:
        """Advance the environment by one step (implemented by subclasses)."""
        raise NotImplementedError

    def reset_model(self) -> NDArray[np.float64]:
        """Draw the initial ``qpos``/``qvel`` and return the first observation."""
        raise NotImplementedError

    def _get_reset_info(self) -> dict[str, Any]:
        """Return the ``info`` that ``reset`` returns."""
        return {}
