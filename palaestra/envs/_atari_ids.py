"""Registers the Atari ids ale-py registers (imported by :mod:`palaestra.envs`).

Every ROM bundled with ale-py 0.12 has an ``ALE/<Game>-v5`` id (but the four that have no
single-player mode), and the games of the original ALE benchmark also have the older
``<Game>-v0``/``<Game>-v4`` ids and their ``NoFrameskip`` variants, with ale-py's settings.
The ids are listed here, so registering them imports nothing; making one imports ``ale_py``
(the ``atari`` extra) and loads its ROM.

Example:
    >>> import palaestra as gym
    >>> spec = gym.spec("ALE/Pong-v5")
    >>> spec.kwargs["frameskip"], spec.kwargs["repeat_action_probability"]
    (4, 0.25)
    >>> gym.spec("PongNoFrameskip-v4").kwargs["frameskip"]
    1
"""

from palaestra.envs.registration import register

__all__ = ["ROM_IDS", "LEGACY_GAMES", "MULTIPLAYER_ONLY", "game_name"]

ENTRY_POINT = "palaestra.envs.atari.atari_env:AtariEnv"
# The v5 ids' make_vec default, as ale-py registers its own: the batched, preprocessed env.
VECTOR_ENTRY_POINT = "palaestra.envs.atari.vector:AtariVectorEnv"


def _words(text: str) -> tuple[str, ...]:
    return tuple(text.split())


# The ROMs ale-py 0.12 ships (the names of its ``roms/*.bin``, in ale-py's order), which are
# the values ``AtariEnv(game=...)`` accepts.
ROM_IDS = _words(
    """
    adventure air_raid alien amidar assault asterix asteroids atlantis2 atlantis backgammon
    bank_heist basic_math battle_zone beam_rider berzerk blackjack bowling boxing breakout
    carnival casino centipede chopper_command combat crazy_climber crossbow darkchambers
    defender demon_attack donkey_kong double_dunk earthworld elevator_action enduro
    entombed et fishing_derby flag_capture freeway frogger frostbite galaxian gopher
    gravitar hangman haunted_house hero human_cannonball ice_hockey jamesbond
    journey_escape joust kaboom kangaroo keystone_kapers king_kong klax koolaid krull
    kung_fu_master laser_gates lost_luggage mario_bros maze_craze miniature_golf
    montezuma_revenge mr_do ms_pacman name_this_game othello pacman phoenix pitfall2
    pitfall pong pooyan private_eye qbert riverraid road_runner robotank seaquest
    sir_lancelot skiing solaris space_invaders space_war star_gunner superman surround
    tennis tetris tic_tac_toe_3d time_pilot trondead turmoil tutankham up_n_down venture
    video_checkers video_chess video_cube video_pinball warlords wizard_of_wor word_zapper
    yars_revenge zaxxon
    """
)

# The games with v0/v4 ids: the original ALE benchmark's.
LEGACY_GAMES = _words(
    """
    adventure air_raid alien amidar assault asterix asteroids atlantis bank_heist
    battle_zone beam_rider berzerk bowling boxing breakout carnival centipede
    chopper_command crazy_climber defender demon_attack double_dunk elevator_action enduro
    fishing_derby freeway frostbite gopher gravitar hero ice_hockey jamesbond
    journey_escape kangaroo krull kung_fu_master montezuma_revenge ms_pacman name_this_game
    phoenix pitfall pong pooyan private_eye qbert riverraid road_runner robotank seaquest
    skiing solaris space_invaders star_gunner tennis time_pilot tutankham up_n_down venture
    video_pinball wizard_of_wor yars_revenge zaxxon
    """
)

# ROMs without a single-player mode: no v5 id, and ALE cannot load them (it ends the process).
MULTIPLAYER_ONLY = frozenset({"combat", "joust", "maze_craze", "warlords"})

# 108,000 frames is 30 minutes of play at 60 frames per second.
MAX_FRAMES = 108_000


def game_name(rom: str) -> str:
    """Return the CamelCase name a ROM's ids use.

    Example:
        >>> game_name("space_invaders"), game_name("tic_tac_toe_3d")
        ('SpaceInvaders', 'TicTacToe3D')
    """
    return rom.title().replace("_", "")


def _register_legacy(rom: str) -> None:
    # v0 repeats the last action with probability 0.25, v4 never; the plain ids skip 2-4 frames.
    for suffix, frameskip in (("", (2, 5)), ("NoFrameskip", 1)):
        for version, repeat_action_probability in (("v0", 0.25), ("v4", 0.0)):
            register(
                id=f"{game_name(rom)}{suffix}-{version}",
                entry_point=ENTRY_POINT,
                kwargs={
                    "game": rom,
                    "repeat_action_probability": repeat_action_probability,
                    "full_action_space": False,
                    "frameskip": frameskip,
                    "max_num_frames_per_episode": MAX_FRAMES,
                },
            )


def _register_v5(rom: str) -> None:
    register(
        id=f"ALE/{game_name(rom)}-v5",
        entry_point=ENTRY_POINT,
        vector_entry_point=VECTOR_ENTRY_POINT,
        kwargs={
            "game": rom,
            "repeat_action_probability": 0.25,
            "full_action_space": False,
            "frameskip": 4,
            "max_num_frames_per_episode": MAX_FRAMES,
        },
    )


# ale-py's order: the legacy ids first, then v5.
for _rom in LEGACY_GAMES:
    _register_legacy(_rom)
for _rom in ROM_IDS:
    if _rom not in MULTIPLAYER_ONLY:
        _register_v5(_rom)
