"""The algorithm registry: one entry makes an algorithm reachable from everything.

A toy algorithm (``tests/train/registry_toy.py``) registered under ``"toy"`` is trained by
``run_training``, named by the command line, given its entry's presets, and loaded back
from its checkpoint, without a change anywhere else.
"""

import json

import pytest

torch = pytest.importorskip("torch")

from palaestra.cli import build_parser  # noqa: E402
from palaestra.train.checkpoint import load_policy  # noqa: E402
from palaestra.train.core import registry  # noqa: E402
from palaestra.train.core.registry import Algorithm  # noqa: E402
from palaestra.train.presets import preset  # noqa: E402
from palaestra.train.runner import RunSettings, config_fields, run_training  # noqa: E402

TOY = Algorithm(
    name="toy",
    agent="tests.train.registry_toy:Toy",
    config="tests.train.registry_toy:ToyConfig",
    actor="tests.train.registry_toy:toy_actor",
    presets={"CartPole": {"config": {"hidden_sizes": (8,), "learning_starts": 32}, "steps": 256}},
    generic_preset={"config": {}, "steps": 1000},
)


@pytest.fixture
def toy():
    registry.register(TOY)
    yield TOY
    registry.unregister("toy")


def test_the_shipped_algorithms_are_registered_in_order():
    assert registry.names() == ("ppo", "reinforce", "dqn", "sac")


def test_an_unknown_name_lists_the_registered_ones():
    with pytest.raises(ValueError, match=r"Unknown algorithm 'a3c'; registered: ppo, reinforce"):
        registry.get("a3c")


@pytest.mark.parametrize(
    ("field", "value", "message"),
    [
        ("name", "Bad Name", "lower-case identifiers"),
        ("agent", "no_colon", "'no_colon' is not a 'module:attribute' path"),
    ],
)
def test_register_refuses_a_malformed_entry(field, value, message):
    entry = Algorithm("fine", "m:A", "m:AConfig", "m:a_actor")
    with pytest.raises(ValueError, match=message):
        registry.register(Algorithm(**{**entry.__dict__, field: value}))


def test_reading_the_registry_imports_no_algorithm():
    import subprocess
    import sys

    code = (
        "import sys; from palaestra.train.core import registry; registry.names(); "
        "print(sorted(m for m in sys.modules if m.startswith(('torch', 'palaestra.train.'))))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "['palaestra.train.core', 'palaestra.train.core.registry']"


def test_a_registered_algorithm_gets_its_config_fields_and_presets(toy):
    assert "toy_field" in config_fields("toy")
    assert preset("CartPole-v1", "toy").steps == 256
    assert preset("Pendulum-v1", "toy").steps == 1000
    assert preset("Pendulum-v1", "toy").tuned is False


def test_the_command_line_takes_a_registered_algorithm(toy):
    assert build_parser().parse_args(["train", "CartPole-v1", "--algo", "toy"]).algo == "toy"


def test_a_registered_algorithm_trains_writes_and_loads_as_a_shipped_one(toy, tmp_path):
    settings = RunSettings(
        "CartPole-v1",
        algo="toy",
        out=str(tmp_path / "run"),
        eval_episodes=2,
        video=False,
        progress=False,
        tensorboard=False,
        overrides={"toy_field": 3},
    )
    summary = run_training(settings)
    assert (summary["algo"], summary["steps"]) == ("toy", 256)
    policy = load_policy(tmp_path / "run" / "model.pt")
    assert (policy.algo, policy.state["config"]["toy_field"]) == ("toy", 3)
    assert json.loads((tmp_path / "run" / "summary.json").read_text())["algo"] == "toy"
