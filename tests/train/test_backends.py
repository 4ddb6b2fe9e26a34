"""One loss per algorithm; the hand-written backends under it compute its gradients.

For each algorithm one parametrised test runs the same update through each backend
(``compiled``: the numba loops, skipped without numba; ``hand-written``: torch operations)
and through autograd on the class's own loss, and asserts the same result. The other
tests pin down when a backend steps aside (an overridden loss, another policy, a torch
release outside the tested range, ``fast_path=False``) and that the choice is reported.
"""

import json

import pytest

torch = pytest.importorskip("torch")

from palaestra import logger  # noqa: E402
from palaestra.train.core import optim  # noqa: E402
from palaestra.train.core.optim import AdamStep, clip_grad_norm, polyak_update  # noqa: E402
from palaestra.train.dqn import DQN, compiled_kernels  # noqa: E402
from palaestra.train.ppo import PPO  # noqa: E402
from palaestra.train.runner import RunSettings, run_training  # noqa: E402
from palaestra.train.sac import SAC  # noqa: E402
from tests.train.helpers import ppo_batch  # noqa: E402

HAS_NUMBA = compiled_kernels() is not None
BACKENDS = [
    pytest.param(
        "compiled", marks=pytest.mark.skipif(not HAS_NUMBA, reason="numba is not installed")
    ),
    "hand-written",
]
PPO_TINY = {"num_envs": 2, "n_steps": 8, "batch_size": 16, "n_epochs": 1}


def with_backend(agent, backend):
    """Make ``agent`` train through ``backend`` (the compiled one is the default)."""
    assert agent.backend == ("compiled" if HAS_NUMBA else "hand-written")
    agent.backend = backend
    if isinstance(agent, PPO) and backend == "hand-written":
        agent._compiled = None
    return agent


# --- PPO ---------------------------------------------------------------------------------


def stacked_gradients_as_towers(agent):
    """The backends' stacked gradients laid out like the policy's actor/critic layers."""
    grads = []
    for tower, index in ((agent.policy.actor, 0), (agent.policy.critic, 1)):
        linears = [m for m in tower if isinstance(m, torch.nn.Linear)]
        for layer, weight, bias in zip(linears, agent.model.weights, agent.model.biases):
            out = layer.weight.shape[0]
            grads.append(weight.grad[index].T[:out])
            grads.append(bias.grad[index, 0, :out])
    return grads


def tower_gradients(agent):
    grads = []
    for tower in (agent.policy.actor, agent.policy.critic):
        for layer in (m for m in tower if isinstance(m, torch.nn.Linear)):
            grads += [layer.weight.grad, layer.bias.grad]
    return grads


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("env_id", ["CartPole-v1", "Pendulum-v1"])
@pytest.mark.parametrize("clip_range_vf", [None, 0.2])
@pytest.mark.parametrize("ent_coef", [0.05, 0.0])
@pytest.mark.parametrize("hidden_sizes", [(8, 6), (8,), (8, 6, 5)])
def test_ppo_backend_equals_autograd_on_the_loss(
    backend, env_id, clip_range_vf, ent_coef, hidden_sizes
):
    settings = dict(
        PPO_TINY,
        ent_coef=ent_coef,
        vf_coef=0.7,
        clip_range=0.1,
        clip_range_vf=clip_range_vf,
        hidden_sizes=hidden_sizes,
        seed=2,
    )
    fast = with_backend(PPO("MlpPolicy", env_id, **settings), backend)
    slow = PPO("MlpPolicy", env_id, fast_path=False, **settings)
    with torch.no_grad():  # a policy far from uniform, the same in both
        for agent in (fast, slow):
            agent.policy.actor[-1].weight.mul_(100.0)
        fast.model.load_state_dict(
            type(fast.model).from_towers(fast.policy.actor, fast.policy.critic).state_dict()
        )
    batch = ppo_batch(slow, torch.Generator().manual_seed(1))
    for agent in (fast, slow):
        agent._advantages_normalized = False
    fast_stats = fast.compute_gradients(batch)
    slow_stats = slow.compute_gradients(batch)
    for got, want in zip(stacked_gradients_as_towers(fast), tower_gradients(slow), strict=True):
        torch.testing.assert_close(got, want, rtol=1e-4, atol=1e-6)
    if env_id == "Pendulum-v1":  # the Gaussian's log standard deviation
        torch.testing.assert_close(fast.head.log_std.grad, slow.policy.head.log_std.grad)
    torch.testing.assert_close(fast_stats, slow_stats, rtol=1e-5, atol=1e-6)
    assert float(fast._last_grad_norm) == pytest.approx(float(slow._last_grad_norm), rel=1e-5)


# --- DQN ---------------------------------------------------------------------------------


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("double_q", [True, False])
@pytest.mark.parametrize("hidden_sizes", [(16,), (8, 8, 8)])
def test_dqn_backend_equals_autograd_on_the_loss(backend, double_q, hidden_sizes):
    settings = dict(
        learning_starts=64,
        batch_size=16,
        gradient_steps=4,
        hidden_sizes=hidden_sizes,
        double_q=double_q,
        seed=2,
    )
    fast = with_backend(DQN("MlpPolicy", "CartPole-v1", **settings), backend)
    slow = DQN("MlpPolicy", "CartPole-v1", fast_path=False, **settings)
    for agent in (fast, slow):
        agent.learn(64, progress_bar=False)  # same seed: same transitions, no update yet
        agent._train()
        agent._train()  # the second round runs with a target network behind the Q-network
    for a, b in zip(fast.q_net.parameters(), slow.q_net.parameters(), strict=True):
        torch.testing.assert_close(a, b, rtol=1e-5, atol=1e-6)
    assert fast._last["loss"] == pytest.approx(slow._last["loss"], rel=1e-5)
    assert fast.num_updates == slow.num_updates == 8


# --- SAC ---------------------------------------------------------------------------------


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("ent_coef", ["auto", 0.2], ids=["learned-ent-coef", "fixed-ent-coef"])
@pytest.mark.parametrize("hidden_sizes", [(16, 16), (8,)])
def test_sac_backend_equals_autograd_on_the_losses(backend, ent_coef, hidden_sizes):
    settings = dict(
        learning_starts=64,
        batch_size=16,
        gradient_steps=3,
        hidden_sizes=hidden_sizes,
        ent_coef=ent_coef,
        seed=2,
    )
    fast = with_backend(SAC("MlpPolicy", "Pendulum-v1", **settings), backend)
    slow = SAC("MlpPolicy", "Pendulum-v1", fast_path=False, **settings)
    for agent in (fast, slow):
        agent.learn(64, progress_bar=False)  # same seed: same transitions, no update yet
        torch.manual_seed(9)  # the same noise (torch's global generator) for both
        agent._train()
        agent._train()
    for module in ("actor", "critic", "critic_target"):
        pairs = zip(getattr(fast, module).parameters(), getattr(slow, module).parameters())
        for a, b in pairs:
            torch.testing.assert_close(a, b, rtol=1e-5, atol=1e-6)
    torch.testing.assert_close(fast.log_ent_coef, slow.log_ent_coef)
    assert fast._last["loss"] == pytest.approx(slow._last["loss"], rel=1e-5)
    assert fast.num_updates == slow.num_updates == 6


# --- overriding the loss -----------------------------------------------------------------


def weight_penalty(module):
    return sum(p.square().sum() for p in module.parameters())


class PenalizedPPO(PPO):
    """PPO with an L2 penalty on the policy's weights, times ``scale``."""

    scale = 1.0

    def loss(self, batch):
        loss, stats = super().loss(batch)
        return loss + self.scale * weight_penalty(self.policy), stats


class PenalizedDQN(DQN):
    scale = 1.0

    def loss(self, batch):
        loss, stats = super().loss(batch)
        return loss + self.scale * weight_penalty(self.q_net), stats


class PenalizedSAC(SAC):
    scale = 1.0

    def actor_loss(self, batch, actions, log_probs, ent_coef):
        loss, stats = super().actor_loss(batch, actions, log_probs, ent_coef)
        return loss + self.scale * weight_penalty(self.actor), stats


def zero_scaled(cls):
    return type(f"Zero{cls.__name__}", (cls,), {"scale": 0.0})


OVERRIDES = [
    pytest.param(
        PPO,
        PenalizedPPO,
        "CartPole-v1",
        dict(PPO_TINY, hidden_sizes=(8,)),
        lambda agent: agent.policy,
        "PenalizedPPO.loss overrides PPO's",
        id="ppo",
    ),
    pytest.param(
        DQN,
        PenalizedDQN,
        "CartPole-v1",
        dict(learning_starts=16, batch_size=8, train_freq=1, hidden_sizes=(8,)),
        lambda agent: agent.q_net,
        "PenalizedDQN.loss overrides DQN's",
        id="dqn",
    ),
    pytest.param(
        SAC,
        PenalizedSAC,
        "Pendulum-v1",
        dict(learning_starts=16, batch_size=8, hidden_sizes=(8,)),
        lambda agent: agent.actor,
        "PenalizedSAC.actor_loss overrides SAC's",
        id="sac",
    ),
]


def trained_weights(cls, env_id, settings, network):
    torch.manual_seed(0)
    agent = cls("MlpPolicy", env_id, seed=3, **settings)
    agent.learn(32, progress_bar=False)
    return agent, [p.detach().clone() for p in network(agent).parameters()]


@pytest.mark.parametrize(("base", "override", "env_id", "settings", "network", "reason"), OVERRIDES)
def test_an_overridden_loss_trains_through_autograd_and_says_why(
    base, override, env_id, settings, network, reason
):
    agent = override("MlpPolicy", env_id, **settings)
    assert agent.backend == "autograd"
    assert reason in agent.backend_reason


@pytest.mark.parametrize(("base", "override", "env_id", "settings", "network", "reason"), OVERRIDES)
def test_an_extra_loss_term_changes_the_update(base, override, env_id, settings, network, reason):
    _, plain = trained_weights(base, env_id, dict(settings, fast_path=False), network)
    _, penalized = trained_weights(override, env_id, settings, network)
    _, zero = trained_weights(zero_scaled(override), env_id, settings, network)
    assert any(not torch.equal(a, b) for a, b in zip(plain, penalized, strict=True))
    for a, b in zip(plain, zero, strict=True):  # the override alone is what changed
        torch.testing.assert_close(a, b)


# --- choosing and reporting the backend --------------------------------------------------


@pytest.mark.parametrize(
    ("cls", "env_id"), [(PPO, "CartPole-v1"), (DQN, "CartPole-v1"), (SAC, "Pendulum-v1")]
)
def test_the_shipped_network_trains_through_a_hand_written_backend_by_default(cls, env_id):
    agent = cls("MlpPolicy", env_id, hidden_sizes=(8,))
    assert agent.backend == ("compiled" if HAS_NUMBA else "hand-written")
    assert agent.backend_reason.startswith("the class's own loss on the shipped network")


@pytest.mark.parametrize(
    ("cls", "env_id"), [(PPO, "CartPole-v1"), (DQN, "CartPole-v1"), (SAC, "Pendulum-v1")]
)
def test_fast_path_false_trains_through_autograd(cls, env_id):
    agent = cls("MlpPolicy", env_id, hidden_sizes=(8,), fast_path=False)
    assert (agent.backend, agent.backend_reason) == (
        "autograd",
        "fast_path=False asks for autograd",
    )


def test_a_ppo_policy_other_than_the_mlp_declines_the_backends():
    agent = PPO("MultiInputPolicy", "CartPole-v1", **PPO_TINY)
    assert agent.backend == "autograd"
    assert "the policy is MultiInputPolicy, not the shipped MlpPolicy" in agent.backend_reason


def test_the_choice_is_logged_once_per_agent(capsys):
    logger.set_level(logger.INFO)
    try:
        agent = PPO("MlpPolicy", "CartPole-v1", fast_path=False, **PPO_TINY)
        agent.learn(32, progress_bar=False)
    finally:
        logger.set_level(logger.WARN)
    assert capsys.readouterr().out == (
        "INFO: PPO trains with the autograd backend: fast_path=False asks for autograd.\n"
    )


def test_a_run_writes_its_backend_and_the_reason_into_the_summary(tmp_path):
    settings = RunSettings(
        "CartPole-v1",
        steps=512,
        out=str(tmp_path / "run"),
        eval_episodes=2,
        video=False,
        progress=False,
        tensorboard=False,
        overrides={"fast_path": False},
    )
    run_training(settings)
    summary = json.loads((tmp_path / "run" / "summary.json").read_text())
    assert (summary["backend"], summary["backend_reason"]) == (
        "autograd",
        "fast_path=False asks for autograd",
    )


# --- private torch APIs ------------------------------------------------------------------


@pytest.fixture
def untested_torch(monkeypatch):
    """Pretend the installed torch is a release the private kernels were not tested with."""
    monkeypatch.setattr(optim, "TESTED_TORCH", ((0, 1), (0, 2)))
    optim.private_torch_apis.cache_clear()
    yield
    monkeypatch.undo()
    optim.private_torch_apis.cache_clear()


@pytest.mark.parametrize(
    ("cls", "env_id"), [(PPO, "CartPole-v1"), (DQN, "CartPole-v1"), (SAC, "Pendulum-v1")]
)
def test_on_an_untested_torch_release_the_backends_step_aside(untested_torch, cls, env_id):
    agent = cls("MlpPolicy", env_id, hidden_sizes=(8,))
    assert agent.backend == "autograd"
    assert f"torch {torch.__version__} is not a release" in agent.backend_reason


def test_on_an_untested_torch_release_the_helpers_take_the_public_calls(untested_torch):
    assert not optim.private_torch_apis()
    p = torch.nn.Parameter(torch.zeros(2))
    p.grad = torch.tensor([3.0, 4.0])
    assert float(clip_grad_norm([p], 1.0)) == 5.0
    torch.testing.assert_close(p.grad, torch.tensor([0.6, 0.8]))
    source, target = [torch.ones(2)], [torch.zeros(2)]
    polyak_update(source, target, 0.25)
    assert target[0].tolist() == [0.25, 0.25]
    q = torch.nn.Parameter(torch.ones(2))
    reference = torch.nn.Parameter(torch.ones(2))
    step = AdamStep(torch.optim.Adam([q], lr=0.1, fused=True))
    plain = torch.optim.Adam([reference], lr=0.1, fused=True)
    for _ in range(3):
        q.grad, reference.grad = torch.ones(2), torch.ones(2)
        step()
        plain.step()
    assert torch.equal(q, reference)


def test_the_tested_torch_range_parses_local_versions():
    assert optim.torch_version("2.13.0+cu128") == (2, 13)
    assert optim.torch_version("2.15.0.dev20260101") == (2, 15)
