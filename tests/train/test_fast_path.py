"""PPO's hand-written MLP fast path: chosen when it applies, equal to the autograd path."""

import numpy as np
import pytest

torch = pytest.importorskip("torch")

import palaestra as gym  # noqa: E402
from palaestra.spaces import Box, MultiDiscrete  # noqa: E402
from palaestra.train.ppo import PPO  # noqa: E402
from tests.train.envs import ActionSpaceEnv  # noqa: E402

TINY = {"num_envs": 2, "n_steps": 8, "batch_size": 16, "n_epochs": 1, "hidden_sizes": (8, 6)}


def test_the_fast_path_is_chosen_for_the_mlp_on_flat_box_observations():
    assert PPO("MlpPolicy", "CartPole-v1", **TINY).fast_path is True
    assert PPO("MlpPolicy", "Pendulum-v1", **TINY).fast_path is True


def test_fast_path_false_trains_with_autograd():
    agent = PPO("MlpPolicy", "CartPole-v1", fast_path=False, **TINY)
    agent.learn(32, progress_bar=False)
    assert agent.fast_path is False and agent.num_updates == 2


def test_fast_path_true_where_it_does_not_apply_names_the_reason():
    with pytest.raises(ValueError, match=r"fast_path=True does not apply here: .*MultiDiscrete"):
        PPO("MlpPolicy", _multi_discrete_env(), fast_path=True, **TINY)


def test_both_paths_start_from_the_same_weights():
    fast = PPO("MlpPolicy", "CartPole-v1", seed=5, **TINY)
    slow = PPO("MlpPolicy", "CartPole-v1", seed=5, fast_path=False, **TINY)
    observations = torch.randn(7, 4)
    with torch.no_grad():
        fast_out, fast_values = fast.model(observations)
        slow_out, slow_values = slow.policy(observations)
    torch.testing.assert_close(fast_out, slow_out)
    torch.testing.assert_close(fast_values, slow_values)


def _batch(agent, generator, size=16):
    """A minibatch with ratios and values moved outside the clip ranges."""
    obs_dim = int(np.prod(agent.observation_space.shape))
    observations = torch.randn(size, obs_dim, generator=generator)
    with torch.no_grad():
        actions, log_probs, _, values = agent.policy.get_action_and_value(observations)
    return (
        observations,
        actions,
        log_probs + 0.4 * torch.randn(size, generator=generator),
        values + 0.5 * torch.randn(size, generator=generator),
        torch.randn(size, generator=generator),
        torch.randn(size, generator=generator),
    )


def _fast_gradients_as_towers(agent):
    """The fast path's stacked gradients laid out like the policy's actor/critic layers."""
    grads = []
    for tower, index in ((agent.policy.actor, 0), (agent.policy.critic, 1)):
        linears = [m for m in tower if isinstance(m, torch.nn.Linear)]
        for layer, weight, bias in zip(linears, agent.model.weights, agent.model.biases):
            out = layer.weight.shape[0]
            grads.append(weight.grad[index].T[:out])
            grads.append(bias.grad[index, 0, :out])
    return grads


def _autograd_gradients_as_towers(agent):
    grads = []
    for tower in (agent.policy.actor, agent.policy.critic):
        for layer in (m for m in tower if isinstance(m, torch.nn.Linear)):
            grads += [layer.weight.grad, layer.bias.grad]
    return grads


@pytest.mark.parametrize("env_id", ["CartPole-v1", "Pendulum-v1"])
@pytest.mark.parametrize("clip_range_vf", [None, 0.2])
def test_fast_and_autograd_paths_give_the_same_gradients_on_the_same_batch(env_id, clip_range_vf):
    settings = dict(TINY, ent_coef=0.05, vf_coef=0.7, clip_range=0.1, clip_range_vf=clip_range_vf)
    fast = PPO("MlpPolicy", env_id, seed=2, **settings)
    slow = PPO("MlpPolicy", env_id, seed=2, fast_path=False, **settings)
    with torch.no_grad():  # a policy far from uniform, the same in both
        for agent in (fast, slow):
            agent.policy.actor[-1].weight.mul_(100.0)
        fast.model.load_state_dict(
            type(fast.model).from_towers(fast.policy.actor, fast.policy.critic).state_dict()
        )
    batch = _batch(slow, torch.Generator().manual_seed(1))
    for agent in (fast, slow):
        agent._advantages_normalized = False
        agent.compute_gradients(batch)
    for got, want in zip(_fast_gradients_as_towers(fast), _autograd_gradients_as_towers(slow)):
        torch.testing.assert_close(got, want, rtol=1e-4, atol=1e-6)
    if env_id == "Pendulum-v1":  # the Gaussian's log standard deviation
        torch.testing.assert_close(fast.head.log_std.grad, slow.policy.head.log_std.grad)


def test_a_fast_path_agent_saves_the_same_policy_weights_it_acts_with(tmp_path):
    agent = PPO("MlpPolicy", "CartPole-v1", **TINY)
    agent.learn(32, progress_bar=False)
    agent.save(tmp_path / "agent.pt")
    autograd = PPO.load(tmp_path / "agent.pt", fast_path=False)
    observations = np.random.default_rng(1).normal(size=(32, 4)).astype(np.float32)
    np.testing.assert_array_equal(autograd.predict(observations), agent.predict(observations))


def _multi_discrete_env():
    return gym.vector.SyncVectorEnv(
        [lambda: ActionSpaceEnv(MultiDiscrete([3, 2]), Box(-1, 1, (3,)))]
    )
