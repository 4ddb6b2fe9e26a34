"""Policies are torch modules: every action space, a CNN on images, multi-input on Dicts."""

import numpy as np
import pytest

torch = pytest.importorskip("torch")

import palaestra as gym  # noqa: E402
from palaestra.spaces import Box, Discrete, MultiBinary, MultiDiscrete  # noqa: E402
from palaestra.train.evaluation import evaluate  # noqa: E402
from palaestra.train.policies import ActorCriticPolicy, make_policy  # noqa: E402
from palaestra.train.ppo import PPO  # noqa: E402
from tests.train.envs import ActionSpaceEnv, DotImageEnv, GridWorldEnv  # noqa: E402

SMALL = {"n_steps": 32, "batch_size": 64, "n_epochs": 2, "learning_rate": 3e-3}


def vector(make_env, num_envs=4):
    return gym.vector.SyncVectorEnv([make_env for _ in range(num_envs)])


@pytest.mark.parametrize(
    "action_space",
    [Discrete(3), MultiDiscrete([3, 2]), MultiBinary(3), Box(-1.0, 1.0, (2,), np.float32)],
    ids=["discrete", "multi-discrete", "multi-binary", "box"],
)
def test_ppo_trains_on_every_action_space_and_acts_inside_it(action_space):
    agent = PPO("MlpPolicy", vector(lambda: ActionSpaceEnv(action_space)), fast_path=False, **SMALL)
    agent.learn(128, progress_bar=False)
    actions = agent.predict(np.zeros((6, 3), np.float32), deterministic=False)
    assert all(action_space.contains(action) for action in actions)


def test_multi_binary_policy_learns_to_switch_every_element_on():
    env = vector(lambda: ActionSpaceEnv(MultiBinary(3)))
    agent = PPO("MlpPolicy", env, fast_path=False, n_steps=32, batch_size=128, learning_rate=1e-2)
    agent.learn(2048, progress_bar=False)
    actions = agent.predict(np.zeros((10, 3), np.float32))
    assert actions.tolist() == [[1, 1, 1]] * 10


def test_a_users_own_module_trains_when_it_follows_the_contract():
    class Tiny(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.logits = torch.nn.Linear(4, 2)
            self.value = torch.nn.Linear(4, 1)

        def get_value(self, obs):
            return self.value(obs).squeeze(-1)

        def get_action_and_value(self, obs, action=None):
            distribution = torch.distributions.Categorical(logits=self.logits(obs))
            if action is None:
                action = distribution.sample()
            return (
                action,
                distribution.log_prob(action),
                distribution.entropy(),
                self.get_value(obs),
            )

    policy = Tiny()
    before = policy.logits.weight.detach().clone()
    agent = PPO(policy, "CartPole-v1", num_envs=2, n_steps=16, batch_size=32)
    agent.learn(64, progress_bar=False)
    assert agent.fast_path is False and agent.policy is policy
    assert not torch.equal(policy.logits.weight, before)
    assert agent.predict(np.zeros((3, 4), np.float32)).shape == (3,)


def test_a_module_without_the_contract_is_rejected():
    with pytest.raises(TypeError, match=r"must be an nn\.Module with get_action_and_value"):
        PPO(torch.nn.Linear(4, 2), "CartPole-v1")


def test_cnn_policy_reads_uint8_hwc_images_channel_first_inside():
    policy = make_policy("CnnPolicy", Box(0, 255, (36, 36, 3), np.uint8), Discrete(2))
    images = torch.zeros(5, 36, 36, 3, dtype=torch.uint8)
    images[..., 0] = 255
    seen = []
    policy.extractor.convolutions[0].register_forward_hook(lambda m, i, o: seen.append(i[0]))
    policy.get_action_and_value(images)
    assert seen[0].shape == (5, 3, 36, 36)
    assert seen[0].dtype == torch.float32 and float(seen[0].max()) == 1.0


def test_auto_policy_picks_the_cnn_for_images_and_multi_input_for_dicts():
    images = PPO("auto", vector(DotImageEnv, 2), **SMALL)
    grid = PPO("auto", vector(GridWorldEnv, 2), **SMALL)
    assert (images.policy_name, grid.policy_name) == ("CnnPolicy", "MultiInputPolicy")
    assert isinstance(grid.policy, ActorCriticPolicy)


def test_cnn_policy_learns_an_image_observation_env():
    env = vector(DotImageEnv)
    agent = PPO(
        "CnnPolicy",
        env,
        features_dim=64,
        n_steps=64,
        batch_size=64,
        n_epochs=4,
        learning_rate=1e-3,
        seed=0,
    )
    agent.learn(3072, progress_bar=False)
    returns = evaluate(agent, vector(DotImageEnv, 8), episodes=16, seed=1)
    assert returns.mean() >= 7.0, returns.mean()  # 8 right answers is perfect, chance is 4


def test_multi_input_policy_trains_on_gridworld_dict_observations():
    # Before: `palaestra train` on GridWorld failed with "axis 0 is out of bounds".
    env = vector(lambda: gym.wrappers.TimeLimit(GridWorldEnv(), 50))
    agent = PPO("MultiInputPolicy", env, **SMALL)
    agent.learn(256, progress_bar=False)
    action = agent.predict({"agent": np.array([0, 0]), "target": np.array([3, 3])})
    assert np.shape(action) == () and 0 <= int(action) < 4


@pytest.mark.slow
def test_multi_input_policy_learns_to_walk_to_the_gridworld_target():
    def make():
        return gym.wrappers.TimeLimit(GridWorldEnv(), 50)

    agent = PPO(
        "MultiInputPolicy",
        vector(make, 8),
        n_steps=64,
        batch_size=256,
        n_epochs=4,
        learning_rate=1e-3,
        gamma=0.9,
        ent_coef=0.01,
        seed=0,
    )
    agent.learn(60_000, progress_bar=False)
    envs = gym.wrappers.vector.RecordEpisodeStatistics(vector(make, 16))
    evaluate(agent, envs, episodes=64, seed=3)
    lengths = np.asarray(envs.length_queue, dtype=float)
    assert lengths.mean() < 6.0, lengths.mean()  # random walks take far longer


@pytest.mark.parametrize(
    "action_space",
    [Discrete(3, start=1), Box(-1.0, 1.0, (2,), np.float32)],
    ids=["discrete", "box"],
)
def test_numpy_acting_gives_torchs_log_probability_and_value_of_its_sample(action_space):
    torch.manual_seed(0)
    policy = make_policy("MlpPolicy", Box(-1, 1, (3,)), action_space, hidden_sizes=(8, 8))
    with torch.no_grad():
        policy.actor[-1].weight.mul_(50.0)  # far from uniform
    obs = np.random.default_rng(0).normal(size=(6, 3)).astype(np.float32)
    action, env_action, log_prob, value = policy.act_numpy(obs, np.random.default_rng(1))
    with torch.no_grad():
        _, want_log_prob, _, want_value = policy.get_action_and_value(
            torch.from_numpy(obs), torch.from_numpy(action)
        )
    np.testing.assert_allclose(log_prob, want_log_prob.numpy(), rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(value, want_value.numpy(), rtol=1e-5, atol=1e-6)
    np.testing.assert_array_equal(env_action, policy.to_env(torch.from_numpy(action)))


def test_numpy_acting_follows_in_place_weight_updates():
    policy = make_policy("MlpPolicy", Box(-1, 1, (3,)), Discrete(2), hidden_sizes=(4,))
    obs = np.ones((1, 3), np.float32)
    before = policy.act_numpy(obs, np.random.default_rng(0))[3]
    with torch.no_grad():
        policy.critic[-1].bias.add_(1.0)
    after = policy.act_numpy(obs, np.random.default_rng(0))[3]
    np.testing.assert_allclose(after, before + 1.0, rtol=1e-6)


def test_numpy_acting_does_not_apply_to_other_policies_and_dtypes():
    rng = np.random.default_rng(0)
    multi = make_policy("MlpPolicy", Box(-1, 1, (3,)), MultiDiscrete([3, 2]))
    assert multi.act_numpy(np.zeros((1, 3), np.float32), rng) is None
    policy = make_policy("MlpPolicy", Box(-1, 1, (3,)), Discrete(2))
    assert policy.act_numpy(np.zeros((1, 3), np.float32), rng) is not None
    policy.double()  # the cached NumPy views are dropped with the float32 tensors
    assert policy.act_numpy(np.zeros((1, 3), np.float32), rng) is None


def test_a_copied_policy_acts_with_its_own_weights():
    import copy

    policy = make_policy("MlpPolicy", Box(-1, 1, (3,)), Discrete(2), hidden_sizes=(4,))
    obs = np.ones((1, 3), np.float32)
    original = policy.act_numpy(obs, np.random.default_rng(0))[3]
    twin = copy.deepcopy(policy)
    with torch.no_grad():
        twin.critic[-1].bias.add_(1.0)
    np.testing.assert_allclose(twin.act_numpy(obs, np.random.default_rng(0))[3], original + 1.0)
    np.testing.assert_allclose(policy.act_numpy(obs, np.random.default_rng(0))[3], original)
