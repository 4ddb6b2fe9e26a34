"""play, PlayableGame, display_arr and PlayPlot, driven headless by scripted pygame events."""

from __future__ import annotations

import importlib
import sys

import numpy as np
import pytest

import palaestra as gym
from palaestra.error import DependencyNotInstalled
from palaestra.utils.play import (
    DEFAULT_KEYS_TO_ACTION,
    MissingKeysToAction,
    PlayableGame,
    PlayPlot,
    default_keys_to_action,
    display_arr,
    play,
)
from tests.wrappers.test_rendering_support import FrameEnv

pygame = pytest.importorskip("pygame")

KEYS = {"a": 0, "d": 1}


@pytest.fixture
def matplotlib_backend_kept():
    """Put matplotlib's backend back: Gymnasium's play module switches it to TkAgg on import."""
    try:
        import matplotlib
    except ImportError:
        yield
        return
    backend = matplotlib.get_backend()
    yield
    matplotlib.use(backend)


FAST = 10_000


class KeyboardScript(FrameEnv):
    """FrameEnv whose n-th ``render`` call (one per frame of ``play``) posts scripted events.

    Render call 0 is PlayableGame measuring the window; frame ``k`` of the game loop is call
    ``k + 1``. The script ends the game with a QUIT event after ``frames`` frames.
    """

    def __init__(self, events: dict[int, list] | None = None, frames: int = 6, **kwargs):
        super().__init__(**kwargs)
        self.script = dict(events or {})
        self.script.setdefault(frames, []).append(pygame.event.Event(pygame.QUIT))
        self.renders = 0
        self.actions: list = []

    def step(self, action):
        self.actions.append(action)
        return super().step(action)

    def render(self):
        for event in self.script.get(self.renders, []):
            pygame.event.post(event)
        self.renders += 1
        return super().render()


def key_down(char: str):
    return pygame.event.Event(pygame.KEYDOWN, key=ord(char))


def key_up(char: str):
    return pygame.event.Event(pygame.KEYUP, key=ord(char))


class TestPlay:
    def test_steps_every_frame_after_the_reset_frame_until_quit(self):
        env = KeyboardScript(frames=5)
        play(env, keys_to_action=KEYS, fps=FAST)
        assert env.actions == [0, 0, 0, 0]

    def test_held_key_chooses_its_action(self):
        env = KeyboardScript({2: [key_down("d")], 4: [key_up("d")]}, frames=6)
        play(env, keys_to_action=KEYS, fps=FAST)
        assert env.actions == [0, 1, 1, 0, 0]

    def test_key_combination_string_maps_to_one_action(self):
        env = KeyboardScript({2: [key_down("w"), key_down("a")]}, frames=3)
        play(env, keys_to_action={"w": 0, "wa": 1, "a": 0}, fps=FAST)
        assert env.actions == [0, 1]

    def test_unmapped_key_gives_noop(self):
        env = KeyboardScript({1: [key_down("x")]}, frames=3)
        play(env, keys_to_action=KEYS, fps=FAST, noop=1)
        assert env.actions == [1, 1]

    def test_escape_ends_the_game(self):
        escape = pygame.event.Event(pygame.KEYDOWN, key=pygame.K_ESCAPE)
        env = KeyboardScript({2: [escape]}, frames=50)
        play(env, keys_to_action=KEYS, fps=FAST)
        assert len(env.actions) == 1

    def test_waits_for_the_player_when_asked(self):
        env = KeyboardScript({3: [key_down("a")]}, frames=5)
        play(env, keys_to_action=KEYS, fps=FAST, wait_on_player=True)
        assert env.actions == [0, 0]

    def test_finished_episode_is_reset_with_the_seed(self):
        env = KeyboardScript(frames=8, episode_length=2)
        resets = []
        original_reset = env.reset

        def counting_reset(*, seed=None, options=None):
            resets.append(seed)
            return original_reset(seed=seed, options=options)

        env.reset = counting_reset
        play(env, keys_to_action=KEYS, fps=FAST, seed=7)
        assert resets == [7, 7, 7, 7]

    def test_callback_gets_each_transition(self):
        env = KeyboardScript(frames=2)
        transitions = []
        play(env, keys_to_action=KEYS, fps=FAST, callback=lambda *t: transitions.append(t))
        assert [(t[2], t[3], t[4], t[5]) for t in transitions] == [(0, 1.0, False, False)]

    def test_cartpole_default_keys_use_the_arrows(self):
        env = gym.make("CartPole-v1", render_mode="rgb_array")
        actions = []
        right = pygame.event.Event(pygame.KEYDOWN, key=pygame.K_RIGHT)

        def drive(obs_t, obs_tp1, action, *rest):
            actions.append(action)
            pygame.event.post(right if len(actions) == 1 else pygame.event.Event(pygame.QUIT))

        play(env, keys_to_action=default_keys_to_action(env), fps=FAST, seed=0, callback=drive)
        assert actions == [0, 1]

    @pytest.mark.parametrize("library", ["gymnasium", "palaestra"])
    @pytest.mark.usefixtures("matplotlib_backend_kept")
    def test_an_env_without_its_own_mapping_is_missing_keys_at_once(self, library):
        # As in Gymnasium: no keys_to_action and no get_keys_to_action is an error, not a
        # game that runs (and waits for a window to be closed) with keys nobody asked for.
        lib = pytest.importorskip(library)
        play_module = importlib.import_module(f"{library}.utils.play")
        env = lib.make("CartPole-v1", render_mode="rgb_array")
        with pytest.raises(play_module.MissingKeysToAction, match="CartPole-v1 does not have"):
            play_module.play(env, fps=FAST)

    def test_env_without_mapping_or_spec_is_an_error(self):
        with pytest.raises(ValueError, match=r"must have an `env\.spec`"):
            play(FrameEnv(), fps=FAST)

    def test_registered_env_without_mapping_is_missing_keys(self):
        env = FrameEnv()
        env.spec = gym.spec("CartPole-v1")
        env.spec = type(env.spec)(id="Unmapped-v0", entry_point="x:y")
        with pytest.raises(MissingKeysToAction, match="Unmapped-v0 does not have explicit key"):
            play(env, fps=FAST)

    def test_non_dict_mapping_is_rejected(self):
        with pytest.raises(TypeError, match="keys_to_action must be a dictionary"):
            play(FrameEnv(), keys_to_action=[("a", 0)], fps=FAST)

    def test_empty_key_combination_is_the_no_key_action(self):
        env = KeyboardScript({2: [key_down("a")]}, frames=4)
        play(env, keys_to_action={(): 1, "a": 0}, fps=FAST)
        assert env.actions == [1, 0, 0]

    def test_non_key_in_combination_is_rejected(self):
        with pytest.raises(TypeError, match="must be integers or strings"):
            play(FrameEnv(), keys_to_action={("a", 1.5): 0}, fps=FAST)

    def test_action_outside_the_space_is_rejected(self):
        with pytest.raises(ValueError, match="Action 5 is not a valid action"):
            play(FrameEnv(), keys_to_action={"a": 5}, fps=FAST)


class TestPlayableGame:
    @pytest.fixture
    def game(self):
        env = FrameEnv()
        env.reset(seed=0)
        yield PlayableGame(env, {(ord("a"),): 0, (ord("d"),): 1}, zoom=2)
        pygame.quit()

    def test_zoom_scales_the_window(self, game):
        assert game.video_size == (64, 48)

    def test_relevant_keys_are_the_mapped_ones(self, game):
        assert game.relevant_keys == {ord("a"), ord("d")}

    def test_key_down_and_up_track_held_keys(self, game):
        game.process_event(key_down("a"))
        game.process_event(key_down("d"))
        game.process_event(key_up("a"))
        assert game.pressed_keys == {ord("d")}

    def test_irrelevant_keys_are_ignored(self, game):
        game.process_event(key_down("q"))
        assert game.pressed_keys == set()

    def test_quit_stops_the_game(self, game):
        game.process_event(pygame.event.Event(pygame.QUIT))
        assert game.running is False

    def test_resize_keeps_the_aspect_ratio(self, game):
        game.process_event(pygame.event.Event(pygame.WINDOWRESIZED, x=200, y=60))
        assert game.video_size == (80, 60)

    def test_non_positive_zoom_is_rejected(self):
        with pytest.raises(ValueError, match="Zoom must be a positive float, got 0"):
            PlayableGame(FrameEnv(), {(1,): 0}, zoom=0)

    def test_non_rgb_render_mode_is_rejected(self):
        with pytest.raises(ValueError, match="render_mode = human"):
            PlayableGame(FrameEnv(render_mode="human"), {(1,): 0})


class TestDisplayArr:
    def test_untransposed_array_is_width_first(self):
        screen = pygame.Surface((3, 2))
        image = np.zeros((3, 2, 3), dtype=np.uint8)
        image[2, 0] = 255
        display_arr(screen, image, (3, 2), transpose=False)
        assert tuple(screen.get_at((2, 0)))[:3] == (255, 255, 255)

    def test_non_uint8_array_is_rejected(self):
        with pytest.raises(TypeError, match="uint8"):
            display_arr(pygame.Surface((2, 2)), np.zeros((2, 2, 3)), (2, 2), transpose=True)


class TestPlayPlot:
    def test_keeps_only_the_horizon(self):
        plotter = PlayPlot(lambda *t: [t[3], -t[3]], horizon_timesteps=2, plot_names=["r", "-r"])
        for reward in (1.0, 2.0, 3.0):
            plotter.callback(None, None, 0, reward, False, False, {})
        assert [list(series) for series in plotter.data] == [[2.0, 3.0], [-2.0, -3.0]]

    def test_titles_each_plot(self):
        plotter = PlayPlot(lambda *t: [0, 0], horizon_timesteps=5, plot_names=["a", "b"])
        assert [axis.get_title() for axis in plotter.ax] == ["a", "b"]

    def test_wrong_number_of_values_is_an_error(self):
        plotter = PlayPlot(lambda *t: [1, 2], horizon_timesteps=5, plot_names=["only"])
        with pytest.raises(
            ValueError, match=r"returned 2 values \(\[1, 2\]\) but there are 1 plots"
        ):
            plotter.callback(None, None, 0, 0.0, False, False, {})


@pytest.mark.filterwarnings("ignore::DeprecationWarning")
@pytest.mark.parametrize("env_id", sorted(DEFAULT_KEYS_TO_ACTION))
def test_default_mappings_are_valid_actions(env_id):
    env = gym.make(env_id)
    keys_to_action = default_keys_to_action(env)
    assert all(action in env.action_space for action in keys_to_action.values())


def test_mountain_car_plays_with_arrows_and_coasts_without_keys():
    env = gym.make("MountainCar-v0", render_mode="rgb_array")
    actions = []
    right = pygame.event.Event(pygame.KEYDOWN, key=pygame.K_RIGHT)

    def drive(obs_t, obs_tp1, action, *rest):
        actions.append(action)
        pygame.event.post(right if len(actions) == 1 else pygame.event.Event(pygame.QUIT))

    play(env, keys_to_action=default_keys_to_action(env), fps=FAST, seed=0, callback=drive)
    assert actions == [1, 2]


def test_missing_pygame_names_the_classic_control_extra(monkeypatch):
    monkeypatch.setitem(sys.modules, "pygame", None)
    with pytest.raises(DependencyNotInstalled, match=r"palaestra\[classic-control\]"):
        play(FrameEnv(), keys_to_action=KEYS)


def test_missing_matplotlib_is_reported_by_play_plot(monkeypatch):
    monkeypatch.setitem(sys.modules, "matplotlib.pyplot", None)
    with pytest.raises(DependencyNotInstalled, match="matplotlib is not installed"):
        PlayPlot(lambda *t: [0], horizon_timesteps=5, plot_names=["r"])


@pytest.mark.usefixtures("matplotlib_backend_kept")
@pytest.mark.parametrize("keys", [{"a": 0, "d": 1}, {(ord("a"),): 0, (ord("d"),): 1}])
def test_play_of_a_real_env_steps_as_gymnasiums_play(keys):
    gymnasium = pytest.importorskip("gymnasium")
    from gymnasium.utils import play as gymnasium_play

    from palaestra.utils import play as palaestra_play

    def transitions(lib, play_module):
        events = [key_down("d"), key_up("d"), key_down("a"), key_down("d")]
        seen = []

        def press_next(obs_t, obs_tp1, action, *rest):
            seen.append((action, np.asarray(obs_tp1).tolist()))
            pygame.event.post(events.pop(0) if events else pygame.event.Event(pygame.QUIT))

        env = lib.make("CartPole-v1", render_mode="rgb_array")
        play_module.play(env, callback=press_next, keys_to_action=keys, seed=42, fps=FAST)
        return seen

    ours = transitions(gym, palaestra_play)
    assert ours == transitions(gymnasium, gymnasium_play)
    assert [action for action, _ in ours] == [0, 1, 0, 0, 0]
