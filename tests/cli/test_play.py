"""``palaestra play``: default keys only, options passed on, controls printed."""

from __future__ import annotations

import pytest

from palaestra.cli import main
from palaestra.cli import play as play_command
from palaestra.cli.play import describe_controls

pygame = pytest.importorskip("pygame")


@pytest.fixture
def display(monkeypatch):
    """Pretend a display is available (the tests run headless)."""
    monkeypatch.setattr(play_command, "display_problem", lambda: None)


@pytest.fixture
def played(monkeypatch, display):
    """Replace the game loop with a recorder of its arguments."""
    calls = []

    def fake_play(env, **kwargs):
        calls.append((env.spec.id, env.render_mode, kwargs))

    monkeypatch.setattr(play_command.play_utils, "play", fake_play)
    return calls


def test_options_reach_the_game(played, capsys):
    status = main(["play", "MountainCar-v0", "--fps", "15", "--zoom", "2", "--seed", "4"])
    env_id, render_mode, kwargs = played[0]
    assert (status, env_id, render_mode) == (0, "MountainCar-v0", "rgb_array")
    assert (kwargs["fps"], kwargs["zoom"], kwargs["seed"]) == (15.0, 2.0, 4)


def test_game_uses_the_default_keys(played, capsys):
    main(["play", "CartPole-v1"])
    assert played[0][2]["keys_to_action"] == {(pygame.K_LEFT,): 0, (pygame.K_RIGHT,): 1}


def test_controls_are_printed(played, capsys):
    main(["play", "CartPole-v1"])
    assert capsys.readouterr().out.splitlines() == [
        "Playing CartPole-v1; Escape or closing the window quits.",
        "  left: action 0",
        "  right: action 1",
    ]


def test_env_without_default_keys_is_a_usage_error(played, capsys):
    from palaestra.envs.registration import register, registry

    register(
        "palaestra_tests/NoKeys-v0", entry_point="tests.wrappers.test_rendering_support:FrameEnv"
    )
    try:
        status = main(["play", "palaestra_tests/NoKeys-v0"])
    finally:
        del registry["palaestra_tests/NoKeys-v0"]
    assert status == 2
    assert "palaestra_tests/NoKeys-v0 has no default keys" in capsys.readouterr().err
    assert played == []


def test_unknown_env_is_a_usage_error(played, capsys):
    assert main(["play", "NoSuchEnv-v0"]) == 2
    assert "error: Environment `NoSuchEnv` doesn't exist." in capsys.readouterr().err
    assert played == []


@pytest.mark.parametrize("option", ["--fps", "--zoom"])
@pytest.mark.parametrize("bad", ["0", "-2", "fast"])
def test_rates_and_zoom_must_be_positive(option, bad, capsys):
    with pytest.raises(SystemExit) as exit_info:
        main(["play", "CartPole-v1", option, bad])
    assert exit_info.value.code == 2
    message = f"error: argument {option}: expected a positive number, got '{bad}'"
    assert message in capsys.readouterr().err


def test_quitting_the_window_ends_the_command(display, capsys):
    pygame.display.init()
    pygame.display.set_mode((1, 1))
    pygame.event.post(pygame.event.Event(pygame.QUIT))
    assert main(["play", "CartPole-v1", "--fps", "1000", "--seed", "0"]) == 0


def test_describe_controls_names_keys_and_the_no_key_action():
    assert describe_controls({(): 1, (pygame.K_LEFT, pygame.K_RIGHT): 0}) == [
        "no key: action 1",
        "left+right: action 0",
    ]


def test_without_a_display_play_fails_at_once_with_a_clear_message(monkeypatch, capsys):
    monkeypatch.delenv("DISPLAY", raising=False)
    monkeypatch.delenv("WAYLAND_DISPLAY", raising=False)
    monkeypatch.delenv("SDL_VIDEODRIVER", raising=False)
    monkeypatch.setattr(play_command.sys, "platform", "linux")
    monkeypatch.setattr(play_command.play_utils, "play", pytest.fail)  # never reached
    assert main(["play", "CartPole-v1"]) == 2
    err = capsys.readouterr().err
    assert "cannot play CartPole-v1: no display: neither DISPLAY nor WAYLAND_DISPLAY is set" in err
    assert "palaestra record CartPole-v1" in err


@pytest.mark.parametrize("driver", ["dummy", "offscreen"])
def test_sdl_drivers_without_a_window_count_as_no_display(driver):
    problem = play_command.display_problem({"DISPLAY": ":0", "SDL_VIDEODRIVER": driver}, "linux")
    assert problem == f"SDL_VIDEODRIVER={driver} shows no window"


def test_a_set_display_variable_counts_as_a_display():
    assert play_command.display_problem({"WAYLAND_DISPLAY": "wayland-0"}, "linux") is None
