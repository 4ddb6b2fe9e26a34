"""The steppers equal ``mj_step`` then ``mj_rnePostConstraint`` on one ``MjData`` each, exactly.

The reference is :class:`ThreadSimulations` on one thread: one ``MjData`` per row, each
stepped and then given ``mj_rnePostConstraint``, as a single env does. The batch copies only
the rows with an external force to sum; these tests cover contact rows, contact-free rows,
and forces that need no contact (applied body forces, equality constraints).
"""

from __future__ import annotations

import gc
import os
import select
import signal
import threading

import mujoco
import numpy as np
import pytest

from palaestra.envs.mujoco._simulations import BatchSimulations, ThreadSimulations
from palaestra.envs.mujoco.models import build_model

FIELDS = ("cfrc_ext", "ctrl", "qpos", "qvel")

# A free box under gravity, out of reach of anything: it never has a contact.
FREE_BOX = """
<mujoco>
  <worldbody>
    <body name="box" pos="0 0 1">
      <freejoint/>
      <geom type="box" size="0.1 0.1 0.1"/>
    </body>
  </worldbody>
</mujoco>
"""

# A pendulum held to the world by a connect constraint instead of a joint: no contact.
CONNECTED_POLE = """
<mujoco>
  <worldbody>
    <body name="pole" pos="0 0 1">
      <freejoint/>
      <geom type="capsule" fromto="0 0 0 0.3 0 0" size="0.02" contype="0" conaffinity="0"/>
    </body>
  </worldbody>
  <equality>
    <connect body1="pole" anchor="0 0 0"/>
  </equality>
</mujoco>
"""


def _both(model: mujoco.MjModel, num_envs: int):
    batch = BatchSimulations(model, num_envs, 2, FIELDS, contact_forces=True)
    reference = ThreadSimulations(model, num_envs, 1, FIELDS, contact_forces=True)
    rows = np.arange(num_envs)
    for simulations in (batch, reference):
        simulations.reset(rows, np.tile(model.qpos0, (num_envs, 1)), np.zeros((num_envs, model.nv)))
    return batch, reference


def test_ant_contact_forces_equal_rne_post_constraint_on_rows_with_and_without_contacts():
    model = build_model("ant.xml")
    batch, reference = _both(model, 6)
    rng = np.random.default_rng(0)
    contacts = []
    for _ in range(80):
        ctrl = rng.uniform(-1.0, 1.0, (6, model.nu))
        batch.step(None, ctrl, 5)
        reference.step(None, ctrl, 5)
        contacts.append(batch.batch.bind("ncon").copy())
        np.testing.assert_array_equal(batch.view.cfrc_ext, reference.view.cfrc_ext, strict=True)
    contacts = np.concatenate(contacts)
    assert (contacts == 0).any() and (contacts > 0).any()
    batch.close()
    reference.close()


def test_contact_forces_of_a_stepped_subset_equal_rne_post_constraint():
    model = build_model("ant.xml")
    batch, reference = _both(model, 4)
    rng = np.random.default_rng(1)
    for step in range(40):
        ctrl = rng.uniform(-1.0, 1.0, (4, model.nu))
        rows = np.array([0, 2]) if step % 2 else np.array([1, 2, 3])
        batch.step(rows, ctrl, 5)
        reference.step(rows, ctrl, 5)
        np.testing.assert_array_equal(batch.view.cfrc_ext, reference.view.cfrc_ext, strict=True)
    batch.close()
    reference.close()


def test_applied_body_forces_are_summed_on_rows_without_contacts():
    model = mujoco.MjModel.from_xml_string(FREE_BOX)
    batch, reference = _both(model, 2)
    batch.batch.bind("xfrc_applied")[1, 1] = [0.0, 0.0, 3.0, 0.5, 0.0, 0.0]
    reference.datas[1].xfrc_applied[1] = [0.0, 0.0, 3.0, 0.5, 0.0, 0.0]
    batch.step(None, np.zeros((2, 0)), 3)
    reference.step(None, np.zeros((2, 0)), 3)
    np.testing.assert_array_equal(batch.view.cfrc_ext, reference.view.cfrc_ext, strict=True)
    assert np.abs(batch.view.cfrc_ext[1]).max() > 0.0
    assert not batch.view.cfrc_ext[0].any()
    batch.close()
    reference.close()


@pytest.mark.parametrize("steps", [1, 4])
def test_equality_constraint_forces_are_summed_on_rows_without_contacts(steps):
    model = mujoco.MjModel.from_xml_string(CONNECTED_POLE)
    batch, reference = _both(model, 2)
    batch.step(None, np.zeros((2, 0)), steps)
    reference.step(None, np.zeros((2, 0)), steps)
    assert not batch.batch.bind("ncon").any()
    np.testing.assert_array_equal(batch.view.cfrc_ext, reference.view.cfrc_ext, strict=True)
    assert np.abs(batch.view.cfrc_ext).max() > 0.0
    batch.close()
    reference.close()


def _threads_and_serial(num_envs: int):
    model = build_model("ant.xml")
    pair = [ThreadSimulations(model, num_envs, threads, FIELDS, True) for threads in (2, 1)]
    for simulations in pair:
        simulations.reset(
            np.arange(num_envs), np.tile(model.qpos0, (num_envs, 1)), np.zeros((num_envs, model.nv))
        )
    return model, pair


def test_rows_stepped_on_two_threads_equal_rows_stepped_on_one(monkeypatch):
    model, (parallel, serial) = _threads_and_serial(6)
    stepping_threads = set()
    helper_stepped = threading.Event()
    step = mujoco.mj_step

    def recording_step(*args):
        name = threading.current_thread().name
        stepping_threads.add(name)
        if name != "MainThread":
            helper_stepped.set()
        else:  # rows are shared out first come: give the woken helper a moment to take one
            helper_stepped.wait(0.05)
        step(*args)

    monkeypatch.setattr(mujoco, "mj_step", recording_step)
    rng = np.random.default_rng(2)
    for _ in range(10):
        ctrl = rng.uniform(-1.0, 1.0, (6, model.nu))
        parallel.step(None, ctrl, 5)
        serial.step(None, ctrl, 5)
        for name in FIELDS:
            np.testing.assert_array_equal(
                getattr(parallel.view, name), getattr(serial.view, name), strict=True
            )
    assert stepping_threads == {"MainThread", "mujoco-step-1"}
    parallel.close()
    serial.close()


def test_each_thread_finishes_the_rows_it_stepped_once(monkeypatch):
    model, (parallel, serial) = _threads_and_serial(6)
    parallel.step(None, np.zeros((6, model.nu)), 5)  # measures a row: the next call is parallel
    step = mujoco.mj_step
    helper_stepped = threading.Event()

    def recording_step(*args):
        if threading.current_thread().name != "MainThread":
            helper_stepped.set()
        else:  # rows are shared out first come: give the woken helper a moment to take one
            helper_stepped.wait(0.05)
        step(*args)

    monkeypatch.setattr(mujoco, "mj_step", recording_step)
    finished: list[tuple[str, list[int]]] = []

    def finish(rows: list[int]) -> None:
        finished.append((threading.current_thread().name, list(rows)))

    parallel.step(np.array([0, 1, 2, 3, 5]), np.zeros((6, model.nu)), 5, finish)
    assert sorted(name for name, _ in finished) == ["MainThread", "mujoco-step-1"]
    assert sorted(row for _, rows in finished for row in rows) == [0, 1, 2, 3, 5]
    parallel.close()
    serial.close()


def test_the_batch_finishes_every_row_after_its_step():
    model = build_model("ant.xml")
    batch = BatchSimulations(model, 3, 2, FIELDS, contact_forces=True)
    batch.reset(np.arange(3), np.tile(model.qpos0, (3, 1)), np.zeros((3, model.nv)))
    finished: list[list[int]] = []
    batch.step(np.array([0, 2]), np.zeros((3, model.nu)), 5, finished.append)
    assert finished == [[0, 1, 2]]
    batch.close()


def test_an_error_on_a_stepping_thread_is_raised_to_the_caller(monkeypatch):
    model, (parallel, serial) = _threads_and_serial(4)
    parallel.step(None, np.zeros((4, model.nu)), 5)  # measures a row: the next call is parallel
    step = mujoco.mj_step
    helper_stepped = threading.Event()

    def failing_step(*args):
        if threading.current_thread().name != "MainThread":
            helper_stepped.set()
            raise mujoco.FatalError("stepping failed")
        # Rows are shared out first come: without this wait this thread could take them all.
        helper_stepped.wait(5.0)
        step(*args)

    monkeypatch.setattr(mujoco, "mj_step", failing_step)
    with pytest.raises(mujoco.FatalError, match="stepping failed"):
        parallel.step(None, np.zeros((4, model.nu)), 5)
    parallel.close()
    serial.close()


def _stepping_threads() -> int:
    return sum(thread.name.startswith("mujoco-step") for thread in threading.enumerate())


def test_simulations_dropped_without_close_end_their_threads():
    before = _stepping_threads()
    model, (parallel, serial) = _threads_and_serial(4)
    parallel.step(None, np.zeros((4, model.nu)), 5)
    assert _stepping_threads() == before + 1
    del parallel, serial
    gc.collect()
    assert _stepping_threads() == before


def test_close_twice_ends_the_threads_once():
    _, (parallel, serial) = _threads_and_serial(4)
    parallel.close()
    parallel.close()
    serial.close()
    assert not parallel._stop_helpers.alive


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs fork")
def test_a_forked_child_steps_on_threads_of_its_own():
    model, (parallel, serial) = _threads_and_serial(4)
    ctrl = np.random.default_rng(3).uniform(-1.0, 1.0, (4, model.nu))
    parallel.step(None, ctrl, 5)  # measures a row: the next call is parallel
    serial.step(None, ctrl, 5)
    reader, writer = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: its parent's helper thread did not come along
        try:
            parallel.step(None, ctrl, 5)
            serial.step(None, ctrl, 5)
            same = all(
                np.array_equal(getattr(parallel.view, name), getattr(serial.view, name))
                for name in FIELDS
            )
            os.write(writer, b"same" if same else b"differ")
        finally:
            os._exit(0)
    os.close(writer)
    # A child that waited on its parent's thread would hang: bound the wait.
    ready, _, _ = select.select([reader], [], [], 30.0)
    answer = os.read(reader, 16) if ready else b"hung"
    os.close(reader)
    if not ready:
        os.kill(pid, signal.SIGKILL)
    os.waitpid(pid, 0)
    assert answer == b"same"
    parallel.close()
    serial.close()
