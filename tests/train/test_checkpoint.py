"""Checkpoints: atomic saves, one clear line for bad files, nothing imported from a file."""

import sys

import pytest

torch = pytest.importorskip("torch")

from palaestra.cli import main  # noqa: E402
from palaestra.train.checkpoint import (  # noqa: E402
    CheckpointError,
    load_policy,
    load_state,
    save_agent,
)
from palaestra.train.ppo import PPO  # noqa: E402

TINY = {"num_envs": 2, "n_steps": 8, "batch_size": 16, "n_epochs": 1, "hidden_sizes": (8,)}


@pytest.fixture(scope="module")
def agent():
    trained = PPO("MlpPolicy", "CartPole-v1", **TINY)
    trained.learn(16, progress_bar=False)
    return trained


@pytest.fixture
def model(tmp_path, agent):
    path = tmp_path / "model.pt"
    save_agent(agent, path)
    return path


def test_a_save_leaves_no_temporary_file_behind(model):
    assert [p.name for p in model.parent.iterdir()] == ["model.pt"]


def test_a_save_that_fails_midway_keeps_the_previous_file(model, agent, monkeypatch):
    before = model.read_bytes()

    def crash(*args, **kwargs):
        raise OSError("disk full")

    monkeypatch.setattr(torch, "save", crash)
    with pytest.raises(OSError, match="disk full"):
        save_agent(agent, model)
    assert model.read_bytes() == before
    assert [p.name for p in model.parent.iterdir()] == ["model.pt"]


@pytest.mark.parametrize(
    "damage, problem",
    [
        (lambda data: data[: len(data) // 2], "is not a readable checkpoint"),  # truncated
        (lambda data: bytes(range(256)) * 40, "is not a readable checkpoint"),  # random
        (lambda data: b"", "is not a readable checkpoint"),  # empty
    ],
    ids=["truncated", "random", "empty"],
)
def test_corrupt_files_get_one_line_naming_the_file(model, damage, problem):
    # Before: OSError [Errno 22], UnpicklingError, KeyError: 101 tracebacks.
    model.write_bytes(damage(model.read_bytes()))
    with pytest.raises(CheckpointError) as caught:
        load_state(model)
    message = str(caught.value)
    assert "\n" not in message and str(model) in message and problem in message


def test_a_foreign_torch_file_is_named_as_not_a_palaestra_checkpoint(tmp_path):
    path = tmp_path / "weights.pt"
    torch.save({"fc.weight": torch.zeros(2, 2)}, path)  # e.g. another library's state dict
    with pytest.raises(CheckpointError, match=r"weights\.pt is not a palaestra checkpoint"):
        load_state(path)


def test_a_tensor_file_is_named_as_not_a_palaestra_checkpoint(tmp_path):
    path = tmp_path / "tensor.pt"
    torch.save(torch.zeros(3), path)
    with pytest.raises(CheckpointError, match="holds a Tensor"):
        load_state(path)


@pytest.mark.parametrize("damage", ["truncate", "foreign"])
def test_eval_of_a_bad_checkpoint_prints_one_line_and_exits_2(model, capsys, damage):
    if damage == "truncate":
        model.write_bytes(model.read_bytes()[:100])
    else:
        torch.save({"something": 1}, model)
    assert main(["eval", str(model.parent), "--episodes", "1"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("palaestra eval: error: ") and "model.pt" in err


HOSTILE_MODULE = """
import pathlib
pathlib.Path(__file__).with_name("PWNED").write_text("code from the run folder ran")
"""


@pytest.fixture
def hostile_folder(tmp_path, agent, monkeypatch):
    """A downloaded run: a valid weights-only model.pt naming evilmod:CartPole-v1."""
    state = agent.state()
    state["env_id"] = "evilmod:CartPole-v1"
    monkeypatch.setattr(agent, "state", lambda: state)
    save_agent(agent, tmp_path / "model.pt")
    (tmp_path / "evilmod.py").write_text(HOSTILE_MODULE)
    monkeypatch.chdir(tmp_path)
    monkeypatch.delitem(sys.modules, "evilmod", raising=False)
    yield tmp_path
    sys.modules.pop("evilmod", None)


def test_eval_of_a_hostile_run_folder_runs_nothing(hostile_folder, capsys):
    # Before: the CLI put the cwd on sys.path and load_policy imported evilmod.
    assert main(["eval", ".", "--episodes", "1"]) == 2
    assert not (hostile_folder / "PWNED").exists()
    assert "evilmod" not in sys.modules
    err = capsys.readouterr().err
    assert "would import module 'evilmod'; nothing was run" in err
    assert "--allow-import" in err


def test_load_policy_of_a_hostile_file_imports_nothing(hostile_folder):
    with pytest.raises(CheckpointError, match="would import module 'evilmod'"):
        load_policy(hostile_folder / "model.pt")
    assert not (hostile_folder / "PWNED").exists()


def test_allow_import_is_the_explicit_way_to_import_a_checkpoints_module(hostile_folder):
    sys.path.insert(0, str(hostile_folder))
    try:
        policy = load_policy(hostile_folder / "model.pt", allow_import=True)
    finally:
        sys.path.remove(str(hostile_folder))
    assert policy.env_id == "CartPole-v1"
    assert (hostile_folder / "PWNED").exists()


def test_a_loaded_policy_predicts_one_observation(model):
    # Before: load_policy(...).predict(single_obs) raised a torch shape error.
    import numpy as np

    action = load_policy(model).predict(np.zeros(4, dtype=np.float32))
    assert np.shape(action) == () and int(action) in (0, 1)


@pytest.fixture
def linear_devices(monkeypatch):
    """(out_features, device type) of every torch Linear layer built during the test."""
    built = []
    real_linear = torch.nn.Linear.__init__

    def record(self, in_features, out_features, *args, **kwargs):
        device = kwargs.get("device") or torch.get_default_device()
        built.append((out_features, torch.device(device).type))
        real_linear(self, in_features, out_features, *args, **kwargs)

    monkeypatch.setattr(torch.nn.Linear, "__init__", record)
    return built


def test_a_config_naming_huge_layers_is_refused_before_allocating(model, linear_devices):
    # Before: hidden_sizes=[16384, 16384] beside 8-unit weights made eval allocate GBs.
    state = load_state(model)
    state["config"]["hidden_sizes"] = [16384, 16384]
    torch.save(state, model)
    with pytest.raises(CheckpointError) as caught:
        load_policy(model)
    message = str(caught.value)
    assert "\n" not in message and message.startswith(f"{model}: checkpoint weights do not fit")
    assert "size mismatch for actor.0.weight: copying a param with shape (8, 4)" in message
    assert "the shape in current model is (16384, 4); nothing was allocated." in message
    assert all(device == "meta" for size, device in linear_devices if size == 16384)


@pytest.mark.parametrize(
    "algo, env_id", [("ppo", "CartPole-v1"), ("dqn", "CartPole-v1"), ("sac", "Pendulum-v1")]
)
def test_algo_load_refuses_huge_layers_before_allocating(tmp_path, linear_devices, algo, env_id):
    # Before: PPO/DQN/SAC.load built the agent from the config's sizes, then failed to load.
    from palaestra.train.core import registry

    algorithm = registry.get(algo).agent_class()
    path = tmp_path / "model.pt"
    algorithm("MlpPolicy", env_id, hidden_sizes=(8,)).save(path)
    state = load_state(path)
    state["config"]["hidden_sizes"] = [4096, 4096]
    torch.save(state, path)
    linear_devices.clear()
    with pytest.raises(CheckpointError, match=r"checkpoint weights do not fit .*size mismatch"):
        algorithm.load(path)
    assert all(device == "meta" for size, device in linear_devices if size == 4096)


class _NotData:
    """A class a hostile checkpoint could pickle (never unpickled by load_state)."""


@pytest.mark.parametrize("content", ["object", "pickle"])
def test_an_unreadable_file_is_named_without_ansi_codes_or_torchs_advice(tmp_path, content):
    # Before: the message embedded torch's \x1b[1m escapes and half its weights_only advice.
    path = tmp_path / "model.pt"
    if content == "object":
        torch.save({"format": "palaestra-checkpoint", "thing": _NotData()}, path)
    else:
        path.write_bytes(__import__("pickle").dumps({"a": 1}))
    with pytest.raises(CheckpointError) as caught:
        load_state(path)
    message = str(caught.value)
    assert "\x1b" not in message and "weights_only" not in message and "\n" not in message
    expected = {
        "object": f"({__name__}._NotData), and checkpoints are loaded as data only",
        "pickle": "not a torch file: not a data-only pickle (unsupported operand 149)",
    }[content]
    assert message.startswith(f"{path} is not a readable checkpoint (") and expected in message


def _full_disk(file, data):
    import errno

    raise OSError(errno.ENOSPC, "No space left on device")


def test_a_full_disk_is_one_line_naming_the_file_and_the_free_space(model, agent, monkeypatch):
    # Before: a raw torch traceback ("unexpected pos ...") with nothing about disk or file.
    before = model.read_bytes()
    monkeypatch.setattr("palaestra.train.checkpoint._write_file", _full_disk)
    with pytest.raises(CheckpointError) as caught:
        save_agent(agent, model)
    message = str(caught.value)
    assert "\n" not in message
    assert message.startswith(f"cannot write checkpoint {model}: No space left on device (")
    assert f" MiB free on {model.parent}); free some space" in message
    assert model.read_bytes() == before
    assert [p.name for p in model.parent.iterdir()] == ["model.pt"]


def test_train_on_a_full_disk_exits_2_with_one_line(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr("palaestra.train.checkpoint._write_file", _full_disk)
    out = tmp_path / "run"
    args = ["train", "CartPole-v1", "--out", str(out), "--steps", "256", "--no-video"]
    assert main([*args, "--no-progress", "--eval-episodes", "1"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err
    checkpoint = out / "checkpoints" / "step_256.pt"
    assert err.startswith(f"palaestra train: error: cannot write checkpoint {checkpoint}: No sp")
