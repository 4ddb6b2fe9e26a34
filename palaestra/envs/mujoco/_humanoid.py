"""What Humanoid and HumanoidStandup share: their observation of the body's dynamics.

Example:
    >>> from palaestra.envs.mujoco.humanoid_v5 import HumanoidEnv
    >>> issubclass(HumanoidEnv, HumanoidBaseEnv)
    True
"""

from __future__ import annotations

from typing import Any

import numpy as np

from palaestra.envs.mujoco._task import MujocoTaskEnv, flat_tail

__all__ = ["HumanoidBaseEnv", "humanoid_observe", "mass_center", "mass_center_of"]


def mass_center(model: Any, data: Any) -> np.ndarray:
    """Return the x and y of the centre of mass (of each env, for batched ``data``).

    Example:
        >>> from palaestra.envs.mujoco.models import build_model
        >>> import mujoco
        >>> model = build_model("humanoid.xml")
        >>> data = mujoco.MjData(model)
        >>> mujoco.mj_forward(model, data)
        >>> mass_center(model, data).shape
        (2,)
    """
    # One env's positions with Gymnasium's own subscripts (the cheaper call); a batch's
    # rows reduce over the same body axis in the same order.
    return mass_center_of(model.body_mass, data.xipos)


def mass_center_of(mass: np.ndarray, xipos: np.ndarray) -> np.ndarray:
    """:func:`mass_center` of the bodies' ``mass`` and positions ``xipos`` (rows: a batch).

    Gymnasium's sum: the weighted positions added body after body (a reduction over an
    outer axis adds in turn), divided by the pairwise sum of the masses.
    """
    weighted = _add_reduce(mass[:, None] * xipos, axis=-2)
    # Divided after slicing: the same quotients, and a fresh array without a copy.
    return weighted[..., 0:2] / _add_reduce(mass, axis=None)


_add_reduce = np.add.reduce


def humanoid_observe(settings: Any, data: Any) -> np.ndarray:
    """Return positions, velocities and the parts of the bodies' state the settings include."""
    skipped = 2 if settings.exclude_current_positions_from_observation else 0
    # A part left out is an empty slice of itself: the same operations either way.
    cinert = flat_tail(data.cinert[..., 1:, :])
    if not settings.include_cinert_in_observation:
        cinert = cinert[..., :0]
    cvel = flat_tail(data.cvel[..., 1:, :])
    if not settings.include_cvel_in_observation:
        cvel = cvel[..., :0]
    actuator = data.qfrc_actuator[..., 6:]
    if not settings.include_qfrc_actuator_in_observation:
        actuator = actuator[..., :0]
    contact = flat_tail(data.cfrc_ext[..., 1:, :])
    if not settings.include_cfrc_ext_in_observation:
        contact = contact[..., :0]
    parts = (data.qpos[..., skipped:], data.qvel, cinert, cvel, actuator, contact)
    return np.concatenate(parts, axis=-1)


class HumanoidBaseEnv(MujocoTaskEnv):
    """The humanoids' shared observation of the body's dynamics.

    Positions, velocities and, by default, the bodies' inertias and velocities about the
    centre of mass, actuator forces and contact forces.
    """

    read_fields = (
        "qpos",
        "qvel",
        "ctrl",
        "xipos",
        "cinert",
        "cvel",
        "qfrc_actuator",
        "cfrc_ext",
        "ten_length",
        "ten_velocity",
    )
    reads_contact_forces = True
    observe_function = staticmethod(humanoid_observe)
    settings_names = (
        "_exclude_current_positions_from_observation",
        "_include_cinert_in_observation",
        "_include_cvel_in_observation",
        "_include_qfrc_actuator_in_observation",
        "_include_cfrc_ext_in_observation",
    )

    def _setup_observation(
        self,
        exclude_current_positions_from_observation: bool,
        include_cinert_in_observation: bool,
        include_cvel_in_observation: bool,
        include_qfrc_actuator_in_observation: bool,
        include_cfrc_ext_in_observation: bool,
    ) -> None:
        self._exclude_current_positions_from_observation = (
            exclude_current_positions_from_observation
        )
        self._include_cinert_in_observation = include_cinert_in_observation
        self._include_cvel_in_observation = include_cvel_in_observation
        self._include_qfrc_actuator_in_observation = include_qfrc_actuator_in_observation
        self._include_cfrc_ext_in_observation = include_cfrc_ext_in_observation

    def _finish_observation(self) -> None:
        # A view of the model's masses (each attribute access of an MjModel field makes
        # one): a mass the user changes is read at the next step, as Gymnasium reads it.
        self._body_mass = self.model.body_mass
        data = self.data
        self._set_state_observation(
            2 * self._exclude_current_positions_from_observation,
            cinert=data.cinert[1:].size * self._include_cinert_in_observation,
            cvel=data.cvel[1:].size * self._include_cvel_in_observation,
            qfrc_actuator=(data.qvel.size - 6) * self._include_qfrc_actuator_in_observation,
            cfrc_ext=data.cfrc_ext[1:].size * self._include_cfrc_ext_in_observation,
            ten_length=0,
            ten_velocity=0,
        )

    def _mass_center(self, data: Any) -> np.ndarray:
        """:func:`mass_center` of ``data`` (the masses read through a view bound once)."""
        return mass_center_of(self._body_mass, data.xipos)

    def _reset_state(self, np_random: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
        return self._noisy_state(np_random)

    def _tendons(self, data: Any) -> dict[str, Any]:
        return {
            "tendon_length": data.ten_length.copy(),
            "tendon_velocity": data.ten_velocity.copy(),
        }
