"""The models built in code compile to Gymnasium's models, field for field.

Gymnasium's installed MJCF files are the oracle here only: every physics field of the
compiled ``MjModel`` (bodies, joints, dofs, geoms, actuators, tendons, sites, options) must
equal ours exactly; visual-only fields (textures, materials, lights, cameras, colours) and
memory sizes may differ.
"""

from __future__ import annotations

import os

import numpy as np
import pytest

mujoco = pytest.importorskip("mujoco")

from palaestra.envs.mujoco.models import MODEL_NAMES, build_model, build_spec  # noqa: E402

# Fields that only change how a frame looks, names and memory layout.
_VISUAL_OR_BOOKKEEPING = (
    "name_",
    "names",
    "tex_",
    "mat_",
    "light_",
    "cam_",
    "paths",
    "text_",
    "numeric_",
    "key_",
    "geom_rgba",
    "geom_matid",
    "geom_user",
    "site_rgba",
    "site_matid",
    "narena",
    "nbuffer",
    "nnames",
    "nnumeric",
    "ntex",
    "nmat",
    "ntext",
    "nkey",
    "nuser",
    "nlight",
    "ncam",
    "signature",
)
_OPTIONS = (
    "timestep",
    "gravity",
    "integrator",
    "iterations",
    "density",
    "viscosity",
    "solver",
    "cone",
    "impratio",
    "tolerance",
    "ls_iterations",
    "noslip_iterations",
    "jacobian",
    "disableflags",
    "enableflags",
    "wind",
    "o_margin",
)


def physics_differences(ours, theirs) -> list[str]:
    """The names of physics fields (arrays, sizes, options) that differ."""
    different = []
    for name in dir(theirs):
        if name.startswith("_") or name.startswith(_VISUAL_OR_BOOKKEEPING):
            continue
        value = getattr(theirs, name)
        if isinstance(value, np.ndarray) and value.dtype.kind in "fiub":
            if not np.array_equal(value, getattr(ours, name)):
                different.append(name)
        elif isinstance(value, int) and not callable(value) and value != getattr(ours, name):
            different.append(name)
    for name in _OPTIONS:
        if not np.array_equal(
            np.asarray(getattr(ours.opt, name)), np.asarray(getattr(theirs.opt, name))
        ):
            different.append(f"opt.{name}")
    return different


@pytest.fixture
def gymnasium_model(gymnasium):
    assets = os.path.join(os.path.dirname(gymnasium.__file__), "envs", "mujoco", "assets")

    def load(name: str):
        return mujoco.MjModel.from_xml_path(os.path.join(assets, name))

    return load


@pytest.mark.parametrize("name", MODEL_NAMES)
def test_built_model_has_gymnasiums_physics(name, gymnasium_model):
    assert physics_differences(build_model(name), gymnasium_model(name)) == []


@pytest.mark.parametrize("name", MODEL_NAMES)
def test_built_model_has_gymnasiums_sizes(name, gymnasium_model):
    ours, theirs = build_model(name), gymnasium_model(name)
    assert (ours.nq, ours.nv, ours.nu, ours.nbody, ours.ngeom) == (
        theirs.nq,
        theirs.nv,
        theirs.nu,
        theirs.nbody,
        theirs.ngeom,
    )


@pytest.mark.parametrize("name", MODEL_NAMES)
def test_built_model_names_bodies_and_joints_as_gymnasium(name, gymnasium_model):
    ours, theirs = build_model(name), gymnasium_model(name)
    for kind, count in (("body", ours.nbody), ("joint", ours.njnt), ("geom", ours.ngeom)):
        names = [getattr(ours, kind)(i).name for i in range(count)]
        assert names == [getattr(theirs, kind)(i).name for i in range(count)], kind


def test_unknown_model_name_lists_the_built_in_ones():
    with pytest.raises(KeyError, match=r"No built-in MuJoCo model is named 'point\.xml'"):
        build_spec("point.xml")


def test_walker_versions_differ_only_in_the_right_foot_friction():
    v4, v5 = build_model("walker2d.xml"), build_model("walker2d_v5.xml")
    foot = v4.geom("foot_geom").id
    assert v4.geom_friction[foot, 0] == 0.9 and v5.geom_friction[foot, 0] == 1.9
    v4.geom_friction[foot, 0] = 1.9
    assert np.array_equal(v4.geom_friction, v5.geom_friction)
