"""Network structure and initialization."""

import math

import pytest

torch = pytest.importorskip("torch")
nn = torch.nn

from palaestra.train.networks import ActorCritic, PolicyNetwork, Tanh, mlp  # noqa: E402


@pytest.fixture
def policy():
    torch.manual_seed(0)
    return PolicyNetwork(obs_dim=4, num_outputs=2, hidden_dim=32, dropout=0.1)


def test_input_block_is_linear_layernorm_dropout(policy):
    kinds = [type(layer) for layer in policy.input_block]
    assert kinds == [nn.Linear, nn.LayerNorm, nn.Dropout]


def test_residual_block_is_linear_gelu_dropout_linear(policy):
    kinds = [type(layer) for layer in policy.residual_block]
    assert kinds == [nn.Linear, nn.GELU, nn.Dropout, nn.Linear]


def test_dropout_probability_is_configurable(policy):
    assert policy.input_block[2].p == 0.1
    assert policy.residual_block[2].p == 0.1


def test_linear_biases_start_at_zero(policy):
    for layer in policy.modules():
        if isinstance(layer, nn.Linear):
            assert torch.count_nonzero(layer.bias) == 0


def test_linear_weights_are_xavier_uniform():
    # Wide layers (512+ weights each) pin the spread to within 10% (about five standard errors).
    torch.manual_seed(0)
    wide = PolicyNetwork(obs_dim=4, num_outputs=2, hidden_dim=256, dropout=0.1)
    for layer in wide.modules():
        if isinstance(layer, nn.Linear):
            fan_out, fan_in = layer.weight.shape
            bound = math.sqrt(6.0 / (fan_in + fan_out))
            assert layer.weight.abs().max() <= bound
            # Uniform on [-b, b] has standard deviation b / sqrt(3).
            assert layer.weight.std().item() == pytest.approx(bound / math.sqrt(3), rel=0.1)


def test_forward_adds_the_residual_and_applies_gelu_to_the_sum(policy):
    policy.eval()
    x = torch.randn(5, 4)
    hidden = policy.input_block(x)
    expected = policy.output_layer(nn.functional.gelu(hidden + policy.residual_block(hidden)))
    torch.testing.assert_close(policy(x), expected)


def test_outputs_are_raw_logits_not_probabilities(policy):
    logits = policy(torch.randn(64, 4) * 5)
    assert not torch.allclose(logits.exp().sum(-1), torch.ones(64))
    assert logits.shape == (64, 2)


def test_mlp_uses_tanh_between_layers():
    net = mlp(3, (8, 8), 2, output_gain=1.0)
    kinds = [type(layer) for layer in net]
    assert kinds == [nn.Linear, Tanh, nn.Linear, Tanh, nn.Linear]
    assert all(isinstance(layer, nn.Tanh) for layer in net[1::2])


def test_numpy_tanh_matches_torch_tanh_in_value_and_gradient():
    z = torch.linspace(-6.0, 6.0, 97).reshape(1, 97).requires_grad_()
    weights = torch.linspace(-1.0, 1.0, 97)
    y = Tanh()(z)
    (y * weights).sum().backward()
    ours = z.grad.clone()
    z.grad = None
    (torch.tanh(z) * weights).sum().backward()
    torch.testing.assert_close(y, torch.tanh(z), rtol=0, atol=2e-7)
    torch.testing.assert_close(ours, z.grad, rtol=0, atol=2e-7)


def test_numpy_tanh_without_autograd_returns_values_only():
    with torch.no_grad():
        y = Tanh()(torch.zeros(2, requires_grad=True))
    assert y.grad_fn is None and y.tolist() == [0.0, 0.0]


def test_numpy_tanh_of_a_zero_dimensional_tensor_is_a_zero_dimensional_tensor():
    z = torch.tensor(0.5, requires_grad=True)
    y = Tanh()(z)
    y.backward()
    assert y.shape == () and y.item() == pytest.approx(math.tanh(0.5), abs=1e-7)
    assert z.grad.item() == pytest.approx(1 - math.tanh(0.5) ** 2, abs=1e-7)


def test_an_mlp_with_numpy_tanh_can_be_scripted_and_gives_the_eager_values():
    torch.manual_seed(0)
    net = mlp(4, (8, 8), 2, output_gain=1.0)
    x = torch.randn(5, 4)
    scripted = torch.jit.script(net)
    torch.testing.assert_close(scripted(x), net(x), rtol=0, atol=2e-7)


def test_a_traced_mlp_with_numpy_tanh_follows_its_input():
    # A trace must not freeze NumPy's tanh of the example input as a constant.
    torch.manual_seed(0)
    net = mlp(4, (8, 8), 2, output_gain=1.0)
    traced = torch.jit.trace(net, torch.zeros(5, 4))
    x = torch.randn(5, 4)
    torch.testing.assert_close(traced(x), net(x), rtol=0, atol=2e-7)


def test_an_exported_mlp_with_numpy_tanh_gives_the_eager_values():
    torch.manual_seed(0)
    net = mlp(4, (8, 8), 2, output_gain=1.0)
    exported = torch.export.export(net, (torch.zeros(5, 4),)).module()
    x = torch.randn(5, 4)
    torch.testing.assert_close(exported(x), net(x), rtol=0, atol=2e-7)


def test_actor_critic_towers_are_independent():
    torch.manual_seed(0)
    model = ActorCritic(4, 2, hidden_sizes=(8, 8))
    _, value = model(torch.randn(3, 4))
    value.sum().backward()
    # The value depends on no policy weight and on no padding column of its output layer.
    for weight in model.weights:
        assert torch.count_nonzero(weight.grad[0]) == 0
    assert torch.count_nonzero(model.weights[-1].grad[1, :, 1:]) == 0


def test_actor_critic_matches_two_plain_mlps():
    torch.manual_seed(0)
    model = ActorCritic(3, 2, hidden_sizes=(5,))
    x = torch.randn(4, 3)
    (w0, w1), (b0, b1) = model.weights, model.biases
    actor = torch.tanh(x @ w0[0] + b0[0]) @ w1[0] + b1[0]
    critic = torch.tanh(x @ w0[1] + b0[1]) @ w1[1, :, :1] + b1[1, :, :1]
    out, value = model(x)
    torch.testing.assert_close(out, actor)
    torch.testing.assert_close(value, critic.squeeze(-1))


def test_actor_critic_policy_output_starts_small():
    torch.manual_seed(0)
    model = ActorCritic(4, 3)
    out, _ = model(torch.randn(100, 4))
    assert out.abs().max() < 0.1


def test_actor_critic_needs_a_hidden_layer():
    with pytest.raises(ValueError, match="at least one hidden layer"):
        ActorCritic(4, 2, hidden_sizes=())
