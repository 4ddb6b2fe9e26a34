"""A small vocabulary for writing MuJoCo models in code with :class:`mujoco.MjSpec`.

Each model module describes its robot with these helpers (bodies, geoms, joints, motors) and
returns an uncompiled spec; :func:`palaestra.envs.mujoco.models.build_model` compiles it.

Example:
    >>> spec = new_spec("box", timestep=0.01)
    >>> body = add_body(spec.worldbody, "box", pos=(0, 0, 1))
    >>> _ = add_geom(body, "box", size=(0.1, 0.1, 0.1), name="box_geom")
    >>> _ = add_joint(body, "free", name="root")
    >>> spec.compile().nq
    7
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import mujoco
import numpy as np

__all__ = [
    "LIMITED",
    "UNLIMITED",
    "add_body",
    "add_geom",
    "add_joint",
    "add_motor",
    "add_scenery",
    "add_site",
    "new_spec",
]

LIMITED = mujoco.mjtLimited.mjLIMITED_TRUE
UNLIMITED = mujoco.mjtLimited.mjLIMITED_FALSE

_GEOM_TYPES = {
    "plane": mujoco.mjtGeom.mjGEOM_PLANE,
    "sphere": mujoco.mjtGeom.mjGEOM_SPHERE,
    "capsule": mujoco.mjtGeom.mjGEOM_CAPSULE,
    "cylinder": mujoco.mjtGeom.mjGEOM_CYLINDER,
    "box": mujoco.mjtGeom.mjGEOM_BOX,
}
_JOINT_TYPES = {
    "free": mujoco.mjtJoint.mjJNT_FREE,
    "hinge": mujoco.mjtJoint.mjJNT_HINGE,
    "slide": mujoco.mjtJoint.mjJNT_SLIDE,
}
_INTEGRATORS = {
    "Euler": mujoco.mjtIntegrator.mjINT_EULER,
    "RK4": mujoco.mjtIntegrator.mjINT_RK4,
}


def _assign(element: Any, attributes: dict[str, Any]) -> None:
    """Set fields; a short value for an array field sets its leading entries, as MJCF does."""
    for key, value in attributes.items():
        current = getattr(element, key)
        if isinstance(current, np.ndarray) and not isinstance(value, str):
            values = np.atleast_1d(np.asarray(value, dtype=current.dtype))
            merged = current.copy()
            merged[: len(values)] = values
            value = merged
        setattr(element, key, value)


def new_spec(
    name: str,
    *,
    timestep: float,
    integrator: str = "Euler",
    degree: bool = True,
    joint: dict[str, Any] | None = None,
    geom: dict[str, Any] | None = None,
    motor: dict[str, Any] | None = None,
    **option: Any,
) -> mujoco.MjSpec:
    """Start a model: name, physics options and the default joint, geom and motor attributes.

    Args:
        name: the model's name.
        timestep: the physics step in seconds.
        integrator: ``"Euler"`` or ``"RK4"``.
        degree: whether joint ranges and axis-angle rotations are given in degrees.
        joint: default attributes of every joint (``mjsJoint`` field names).
        geom: default attributes of every geom (``mjsGeom`` field names).
        motor: default attributes of every actuator (``mjsActuator`` field names).
        option: further ``mjOption`` fields (``gravity``, ``density``, ``iterations``, ...).

    Raises:
        KeyError: for an unknown integrator name.

    Example:
        >>> new_spec("empty", timestep=0.002, integrator="RK4").compile().opt.timestep
        0.002
    """
    spec = mujoco.MjSpec()
    spec.modelname = name
    spec.compiler.degree = degree
    spec.compiler.inertiafromgeom = mujoco.mjtInertiaFromGeom.mjINERTIAFROMGEOM_TRUE
    spec.option.timestep = timestep
    spec.option.integrator = _INTEGRATORS[integrator]
    _assign(spec.option, option)
    _assign(spec.default.joint, joint or {})
    _assign(spec.default.geom, geom or {})
    _assign(spec.default.actuator, motor or {})
    return spec


def add_body(
    parent: mujoco.MjsBody,
    name: str | None = None,
    pos: Sequence[float] = (0.0, 0.0, 0.0),
    **attributes: Any,
) -> mujoco.MjsBody:
    """Add a child body at ``pos`` (in the parent's frame) and return it.

    Example:
        >>> spec = new_spec("one body", timestep=0.01)
        >>> add_body(spec.worldbody, "arm", pos=(0, 0, 1)).name
        'arm'
    """
    body = parent.add_body()
    if name is not None:
        body.name = name
    body.pos = list(pos)
    _assign(body, attributes)
    return body


def add_geom(
    body: mujoco.MjsBody, kind: str, size: Sequence[float], **attributes: Any
) -> mujoco.MjsGeom:
    """Add a geom of ``kind`` (``"capsule"``, ``"sphere"``, ...) to ``body`` and return it.

    ``attributes`` are ``mjsGeom`` fields (``name``, ``pos``, ``quat``, ``fromto``,
    ``friction``, ``density``, ...); ``axisangle=(x, y, z, angle)`` orients the geom.

    Raises:
        KeyError: for an unknown geom kind.

    Example:
        >>> spec = new_spec("ball", timestep=0.01)
        >>> add_geom(spec.worldbody, "sphere", size=(0.5,)).size.tolist()
        [0.5, 0.0, 0.0]
    """
    geom = body.add_geom()
    geom.type = _GEOM_TYPES[kind]
    _assign(geom, {"size": size})
    axisangle = attributes.pop("axisangle", None)
    if axisangle is not None:
        geom.alt.type = mujoco.mjtOrientation.mjORIENTATION_AXISANGLE
        geom.alt.axisangle = list(axisangle)
    _assign(geom, attributes)
    return geom


def add_joint(body: mujoco.MjsBody, kind: str, **attributes: Any) -> mujoco.MjsJoint:
    """Add a ``"hinge"``, ``"slide"`` or ``"free"`` joint to ``body`` and return it.

    ``attributes`` are ``mjsJoint`` fields (``name``, ``axis``, ``range``, ``damping``, ...);
    ``limited`` takes :data:`LIMITED` or :data:`UNLIMITED`.

    Raises:
        KeyError: for an unknown joint kind.

    Example:
        >>> spec = new_spec("slider", timestep=0.01)
        >>> body = add_body(spec.worldbody, "cart")
        >>> _ = add_geom(body, "sphere", size=(0.1,))
        >>> _ = add_joint(body, "slide", name="x", axis=(1, 0, 0))
        >>> spec.compile().nv
        1
    """
    joint = body.add_joint()
    joint.type = _JOINT_TYPES[kind]
    _assign(joint, attributes)
    return joint


def add_site(body: mujoco.MjsBody, name: str, **attributes: Any) -> mujoco.MjsSite:
    """Add a site (a marked point) to ``body`` and return it.

    Example:
        >>> spec = new_spec("marked", timestep=0.01)
        >>> add_site(spec.worldbody, "tip", size=(0.01, 0.01)).size.tolist()
        [0.01, 0.01, 0.005]
    """
    site = body.add_site()
    site.name = name
    _assign(site, attributes)
    return site


def add_motor(
    spec: mujoco.MjSpec, joint: str, gear: float, **attributes: Any
) -> mujoco.MjsActuator:
    """Add a motor driving ``joint`` with ``gear`` and return it.

    Example:
        >>> spec = new_spec("motor", timestep=0.01)
        >>> body = add_body(spec.worldbody, "wheel")
        >>> _ = add_geom(body, "sphere", size=(0.1,))
        >>> _ = add_joint(body, "hinge", name="axle")
        >>> _ = add_motor(spec, "axle", 10.0, ctrlrange=(-1, 1), ctrllimited=LIMITED)
        >>> spec.compile().actuator_gear[0, 0]
        np.float64(10.0)
    """
    motor = spec.add_actuator()
    motor.trntype = mujoco.mjtTrn.mjTRN_JOINT
    motor.target = joint
    _assign(motor, {"gear": gear})
    _assign(motor, attributes)
    return motor


def add_scenery(
    spec: mujoco.MjSpec,
    *,
    floor_size: Sequence[float] | None = (40.0, 40.0, 40.0),
    floor_pos: Sequence[float] = (0.0, 0.0, 0.0),
    floor: dict[str, Any] | None = None,
    sky: tuple[Sequence[float], Sequence[float]] = ((1.0, 1.0, 1.0), (0.0, 0.0, 0.0)),
    checker_repeat: float = 60.0,
    light: bool = True,
) -> mujoco.MjsGeom | None:
    """Add the look shared by the locomotion models: sky, light and a checkered floor.

    The textures and materials only change how frames look, never the physics; the floor
    (when ``floor_size`` is given) is the first geom of the world body.

    Args:
        spec: the model being written.
        floor_size: the floor plane's size, or ``None`` for no floor.
        floor_pos: the floor's position.
        floor: further ``mjsGeom`` fields of the floor (``conaffinity``, ``condim``, ...).
        sky: the two colours of the sky gradient.
        checker_repeat: how often the checker pattern repeats across the floor.
        light: whether to add an overhead directional light.

    Example:
        >>> spec = new_spec("scene", timestep=0.01)
        >>> add_scenery(spec).name
        'floor'
    """
    spec.add_texture(
        type=mujoco.mjtTexture.mjTEXTURE_SKYBOX,
        builtin=mujoco.mjtBuiltin.mjBUILTIN_GRADIENT,
        rgb1=list(sky[0]),
        rgb2=list(sky[1]),
        width=100,
        height=100,
    )
    spec.add_texture(
        name="grid",
        type=mujoco.mjtTexture.mjTEXTURE_2D,
        builtin=mujoco.mjtBuiltin.mjBUILTIN_CHECKER,
        rgb1=[0.0, 0.0, 0.0],
        rgb2=[0.8, 0.8, 0.8],
        width=100,
        height=100,
    )
    grid = spec.add_material(name="floor_grid", reflectance=0.5, shininess=1.0, specular=1.0)
    grid.texrepeat = [checker_repeat, checker_repeat]
    grid.textures[mujoco.mjtTextureRole.mjTEXROLE_RGB] = "grid"
    if light:
        spec.worldbody.add_light(
            type=mujoco.mjtLightType.mjLIGHT_DIRECTIONAL,
            pos=[0.0, 0.0, 1.3],
            dir=[0.0, 0.0, -1.3],
            diffuse=[1.0, 1.0, 1.0],
            specular=[0.1, 0.1, 0.1],
            cutoff=100.0,
            exponent=1.0,
        )
    if floor_size is None:
        return None
    return add_geom(
        spec.worldbody,
        "plane",
        size=floor_size,
        name="floor",
        pos=list(floor_pos),
        material="floor_grid",
        rgba=[0.8, 0.9, 0.8, 1.0],
        **(floor or {}),
    )
