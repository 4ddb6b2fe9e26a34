"""The cart-pole models: InvertedPendulum (one pole) and InvertedDoublePendulum (two).

A cart slides along a rail on the x axis; poles hinge about y on top of it; one motor pushes
the cart.

Example:
    >>> inverted_pendulum().compile().nq, inverted_double_pendulum().compile().nq
    (2, 3)
"""

from __future__ import annotations

import mujoco

from palaestra.envs.mujoco.models._build import (
    LIMITED,
    add_body,
    add_geom,
    add_joint,
    add_motor,
    add_site,
    new_spec,
)

__all__ = ["inverted_double_pendulum", "inverted_pendulum"]

# A capsule turned onto the x axis (a quarter turn about y).
_ALONG_X = (0.707, 0.0, 0.707, 0.0)
_YELLOW = (0.7, 0.7, 0.0, 1.0)
_TEAL = (0.0, 0.7, 0.7, 1.0)


def _rail_and_cart(spec: mujoco.MjSpec, **slider: object) -> mujoco.MjsBody:
    add_geom(
        spec.worldbody,
        "capsule",
        size=(0.02, 1.0),
        name="rail",
        quat=_ALONG_X,
        rgba=(0.3, 0.3, 0.7, 1.0),
    )
    cart = add_body(spec.worldbody, "cart")
    add_joint(
        cart, "slide", name="slider", axis=(1, 0, 0), range=(-1, 1), limited=LIMITED, **slider
    )
    add_geom(cart, "capsule", size=(0.1, 0.1), name="cart", quat=_ALONG_X)
    return cart


def inverted_pendulum() -> mujoco.MjSpec:
    """One 0.6 m pole on a cart, hinge range ±90°, a 100:1 motor on the cart (±3).

    Example:
        >>> inverted_pendulum().compile().actuator_gear[0, 0]
        np.float64(100.0)
    """
    spec = new_spec(
        "inverted pendulum",
        timestep=0.02,
        integrator="RK4",
        gravity=(0.0, 0.0, -9.81),
        joint={"armature": 0.0, "damping": 1.0, "limited": LIMITED},
        geom={"contype": 0, "friction": (1.0, 0.1, 0.1), "rgba": _YELLOW},
        motor={"ctrlrange": (-3.0, 3.0)},
    )
    cart = _rail_and_cart(spec)
    pole = add_body(cart, "pole")
    add_joint(pole, "hinge", name="hinge", axis=(0, 1, 0), range=(-90, 90))
    # Leaning a millimetre off vertical, so that it falls without a push.
    add_geom(
        pole,
        "capsule",
        size=(0.049, 0.3),
        name="cpole",
        fromto=(0, 0, 0, 0.001, 0, 0.6),
        rgba=_TEAL,
    )
    add_motor(spec, "slider", 100.0, name="slide", ctrlrange=(-3, 3), ctrllimited=LIMITED)
    return spec


def inverted_double_pendulum() -> mujoco.MjSpec:
    """Two 0.6 m poles stacked on a cart, a 500:1 motor on the cart (±1), a tip site.

    Gravity leans a hundred-thousandth along x, so that the upright poles fall.

    Example:
        >>> inverted_double_pendulum().compile().nsite
        1
    """
    spec = new_spec(
        "cartpole",
        timestep=0.01,
        integrator="RK4",
        gravity=(1e-5, 0.0, -9.81),
        joint={"damping": 0.05},
        geom={"contype": 0, "friction": (1.0, 0.1, 0.1), "rgba": _YELLOW},
    )
    add_geom(
        spec.worldbody,
        "plane",
        size=(40, 40, 40),
        name="floor",
        pos=(0, 0, -3.0),
        rgba=(0.8, 0.9, 0.8, 1.0),
    )
    cart = _rail_and_cart(spec, margin=0.01)
    parent = cart
    for suffix, pos in (("", (0, 0, 0)), ("2", (0, 0, 0.6))):
        pole = add_body(parent, f"pole{suffix}", pos=pos)
        add_joint(pole, "hinge", name=f"hinge{suffix}", axis=(0, 1, 0))
        add_geom(
            pole,
            "capsule",
            size=(0.045, 0.3),
            name=f"cpole{suffix}",
            fromto=(0, 0, 0, 0, 0, 0.6),
            rgba=_TEAL,
        )
        parent = pole
    add_site(parent, "tip", pos=(0, 0, 0.6), size=(0.01, 0.01))
    add_motor(spec, "slider", 500.0, name="slide", ctrlrange=(-1, 1), ctrllimited=LIMITED)
    return spec
