"""CarRacing: drive a car round a random track, seen from above as 96x96 pixels.

Every episode generates a closed track from twelve noisy checkpoints and lays it out as
sensor tiles in the Box2D world; the car (:mod:`~palaestra.envs.box2d.car_dynamics`) earns
``1000 / N`` for each of the track's ``N`` tiles it first touches and loses 0.1 per frame.
The observation is the scene drawn around the car, so drawing is part of every step. The same
seed and actions give the same trajectory and the same pixels as Gymnasium's
``CarRacing-v3``: the scene is drawn with the same pygame primitives on the same integer
corners, and only polygons that cannot touch the frame are skipped.

Example:
    >>> import palaestra as gym
    >>> env = gym.make("CarRacing-v3")
    >>> observation, info = env.reset(seed=0)
    >>> observation.shape, observation.dtype
    ((96, 96, 3), dtype('uint8'))
    >>> env.close()
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from palaestra import spaces
from palaestra.core import Env
from palaestra.envs.box2d._common import (
    ContactRelay,
    Window,
    import_box2d,
    import_pygame,
    warn_no_render_mode,
)
from palaestra.envs.box2d.car_dynamics import Car, rotation
from palaestra.error import InvalidAction
from palaestra.utils import EzPickle

Box2D = import_box2d()
b2 = Box2D.b2

__all__ = ["CarRacing", "FrictionDetector"]

STATE_W = 96
STATE_H = 96
VIDEO_W = 600
VIDEO_H = 400
WINDOW_W = 1000
WINDOW_H = 800
SCALE = 6.0  # track scale
TRACK_RAD = 900 / SCALE  # the track is a heavily distorted circle of this radius
PLAYFIELD = 2000 / SCALE  # leaving this square ends the episode
FPS = 50
ZOOM = 2.7  # camera zoom
TRACK_DETAIL_STEP = 21 / SCALE
TRACK_TURN_RATE = 0.31
TRACK_WIDTH = 40 / SCALE
BORDER = 8 / SCALE
BORDER_MIN_COUNT = 4
GRASS_DIM = PLAYFIELD / 20.0
MAX_SHAPE_DIM = max(GRASS_DIM, TRACK_WIDTH, TRACK_DETAIL_STEP) * math.sqrt(2) * ZOOM * SCALE
CHECKPOINTS = 12
# A polygon whose integer corners all lie this far past one edge leaves the frame untouched.
_OFF_FRAME = 2


def _sign(value: float) -> float:
    return 1.0 if value > 0 else -1.0 if value < 0 else 0.0


def _grass_squares() -> np.ndarray:
    """Return the checkerboard of grass squares, ``(400, 4, 2)``, in the reference drawing order."""
    squares = [
        [
            (GRASS_DIM * x + GRASS_DIM, GRASS_DIM * y + 0),
            (GRASS_DIM * x + 0, GRASS_DIM * y + 0),
            (GRASS_DIM * x + 0, GRASS_DIM * y + GRASS_DIM),
            (GRASS_DIM * x + GRASS_DIM, GRASS_DIM * y + GRASS_DIM),
        ]
        for x in range(-20, 20, 2)
        for y in range(-20, 20, 2)
    ]
    return np.array(squares, dtype=np.float64)


class FrictionDetector(ContactRelay, b2.contactListener):
    """Colour touched tiles, give each wheel its tiles and reward the first visit of a tile.

    Args:
        env: the race whose ``reward``, ``tile_visited_count`` and ``new_lap`` it updates.
        lap_complete_percent: the share of tiles visited before the start tile ends a lap.

    Example:
        >>> env = CarRacing()
        >>> _ = env.reset(seed=0)
        >>> env.world.contactListener.lap_complete_percent
        0.95
    """

    env: CarRacing

    def __init__(self, env: CarRacing, lap_complete_percent: float):
        super().__init__(env)
        self.lap_complete_percent = lap_complete_percent

    def _touch(self, contact: Any, begin: bool) -> None:
        first = contact.fixtureA.body.userData
        second = contact.fixtureB.body.userData
        tile = other = None
        if first and hasattr(first, "road_friction"):
            tile, other = first, second
        if second and hasattr(second, "road_friction"):
            tile, other = second, first
        if not tile:
            return
        env = self.env
        tile.color[:] = env.road_color
        if not other or not hasattr(other, "tiles"):
            return
        if not begin:
            other.tiles.remove(tile)
            return
        other.tiles.add(tile)
        if not tile.road_visited:
            tile.road_visited = True
            env.reward += 1000.0 / len(env.track)
            env.tile_visited_count += 1
            if (
                tile.idx == 0
                and env.tile_visited_count / len(env.track) > self.lap_complete_percent
            ):
                env.new_lap = True


class CarRacing(Env, EzPickle):
    """Race a car round a generated track, from 96x96x3 pixel observations.

    Continuous actions: steering in ``[-1, 1]`` (left negative), gas and brake in ``[0, 1]``.
    Discrete actions: 0 nothing, 1 steer left, 2 steer right, 3 gas, 4 brake. Reward: -0.1 per
    frame and ``1000 / N`` per track tile first visited; -100 and termination when the car
    leaves the playfield; visiting every tile, or coming back to the first one after
    ``lap_complete_percent`` of them, ends the episode with ``info["lap_finished"]``.

    Args:
        render_mode: ``None``, ``"human"`` (1000x800 window), ``"rgb_array"`` (600x400) or
            ``"state_pixels"`` (the 96x96 observation).
        verbose: print track-generation messages.
        lap_complete_percent: the share of tiles to visit before the first tile ends a lap.
        domain_randomize: draw road, background and grass colours at random on every reset
            (``reset(options={"randomize": False})`` keeps the current ones).
        continuous: continuous (``Box``) instead of discrete (``Discrete(5)``) actions.

    Raises:
        palaestra.error.InvalidAction: from ``step`` for a discrete action outside the space.

    Example:
        >>> env = CarRacing(continuous=False)
        >>> observation, _ = env.reset(seed=1)
        >>> observation, reward, terminated, truncated, info = env.step(3)
        >>> round(reward, 1) > 0, observation.shape
        (True, (96, 96, 3))
    """

    metadata = {"render_modes": ["human", "rgb_array", "state_pixels"], "render_fps": FPS}

    def __init__(
        self,
        render_mode: str | None = None,
        verbose: bool = False,
        lap_complete_percent: float = 0.95,
        domain_randomize: bool = False,
        continuous: bool = True,
    ):
        EzPickle.__init__(
            self, render_mode, verbose, lap_complete_percent, domain_randomize, continuous
        )
        self.render_mode = render_mode
        self.verbose = verbose
        self.lap_complete_percent = lap_complete_percent
        self.domain_randomize = domain_randomize
        self.continuous = continuous
        self._init_colors()
        self._contacts = FrictionDetector(self, lap_complete_percent)
        self.world = b2.world((0, 0), contactListener=self._contacts)
        self.road: list[Any] | None = None
        self.car: Car | None = None
        self.reward = 0.0
        self.prev_reward = 0.0
        self.new_lap = False
        self.isopen = True
        self.surf: Any = None
        self._window: Window | None = None
        self._font: Any = None
        self._text: tuple[str, Any] | None = None
        self._grass = _grass_squares().reshape(-1, 2)
        self.fd_tile = b2.fixtureDef(
            shape=b2.polygonShape(vertices=[(0, 0), (1, 0), (1, -1), (0, -1)])
        )
        if continuous:
            self.action_space = spaces.Box(
                np.array([-1, 0, 0]).astype(np.float32), np.array([+1, +1, +1]).astype(np.float32)
            )  # steer, gas, brake
        else:
            self.action_space = spaces.Discrete(5)  # nothing, left, right, gas, brake
        self.observation_space = spaces.Box(
            low=0, high=255, shape=(STATE_H, STATE_W, 3), dtype=np.uint8
        )

    # ---------------------------------------------------------------- colours and track
    def _init_colors(self) -> None:
        if self.domain_randomize:
            self._randomize_colors()
        else:
            self.road_color = np.array([102, 102, 102])
            self.bg_color = np.array([102, 204, 102])
            self.grass_color = np.array([102, 230, 102])

    def _randomize_colors(self) -> None:
        rng = self.np_random
        self.road_color = rng.uniform(0, 210, size=3)
        self.bg_color = rng.uniform(0, 210, size=3)
        self.grass_color = np.copy(self.bg_color)
        self.grass_color[rng.integers(3)] += 20

    def _reinit_colors(self, randomize: bool) -> None:
        assert self.domain_randomize, "domain_randomize must be True to use this function."
        if randomize:
            self._randomize_colors()

    def _destroy(self) -> None:
        if not self.road:
            return
        for tile in self.road:
            self.world.DestroyBody(tile)
        self.road = []
        assert self.car is not None
        self.car.destroy()

    def _create_track(self) -> bool:
        """Lay out a new track; ``False`` when the generated loop does not close well."""
        rng = self.np_random
        checkpoints = []
        for c in range(CHECKPOINTS):
            noise = rng.uniform(0, 2 * math.pi * 1 / CHECKPOINTS)
            alpha = 2 * math.pi * c / CHECKPOINTS + noise
            rad = rng.uniform(TRACK_RAD / 3, TRACK_RAD)
            if c == 0:
                alpha = 0
                rad = 1.5 * TRACK_RAD
            if c == CHECKPOINTS - 1:
                alpha = 2 * math.pi * c / CHECKPOINTS
                self.start_alpha = 2 * math.pi * (-0.5) / CHECKPOINTS
                rad = 1.5 * TRACK_RAD
            checkpoints.append((alpha, rad * math.cos(alpha), rad * math.sin(alpha)))
        self.road = []

        # Steer a point round the checkpoints, turning at a bounded rate towards the next.
        x, y, beta = 1.5 * TRACK_RAD, 0, 0
        dest_i = 0
        laps = 0
        track = []
        no_freeze = 2500
        visited_other_side = False
        while True:
            alpha = math.atan2(y, x)
            if visited_other_side and alpha > 0:
                laps += 1
                visited_other_side = False
            if alpha < 0:
                visited_other_side = True
                alpha += 2 * math.pi
            while True:  # the next checkpoint ahead, going round again if none is
                failed = True
                while True:
                    dest_alpha, dest_x, dest_y = checkpoints[dest_i % len(checkpoints)]
                    if alpha <= dest_alpha:
                        failed = False
                        break
                    dest_i += 1
                    if dest_i % len(checkpoints) == 0:
                        break
                if not failed:
                    break
                alpha -= 2 * math.pi
            r1x = math.cos(beta)
            r1y = math.sin(beta)
            p1x = -r1y
            p1y = r1x
            dest_dx = dest_x - x
            dest_dy = dest_y - y
            proj = r1x * dest_dx + r1y * dest_dy  # the destination's offset to the right
            while beta - alpha > 1.5 * math.pi:
                beta -= 2 * math.pi
            while beta - alpha < -1.5 * math.pi:
                beta += 2 * math.pi
            prev_beta = beta
            proj *= SCALE
            if proj > 0.3:
                beta -= min(TRACK_TURN_RATE, abs(0.001 * proj))
            if proj < -0.3:
                beta += min(TRACK_TURN_RATE, abs(0.001 * proj))
            x += p1x * TRACK_DETAIL_STEP
            y += p1y * TRACK_DETAIL_STEP
            track.append((alpha, prev_beta * 0.5 + beta * 0.5, x, y))
            if laps > 4:
                break
            no_freeze -= 1
            if no_freeze == 0:
                break

        # Keep exactly one lap: between the last two passes through the start angle.
        i1, i2 = -1, -1
        i = len(track)
        while True:
            i -= 1
            if i == 0:
                return False
            passes_start = track[i][0] > self.start_alpha and track[i - 1][0] <= self.start_alpha
            if passes_start and i2 == -1:
                i2 = i
            elif passes_start and i1 == -1:
                i1 = i
                break
        if self.verbose:
            print(f"Track generation: {i1}..{i2} -> {i2 - i1}-tiles track")
        assert i1 != -1
        assert i2 != -1
        track = track[i1 : i2 - 1]
        first_beta = track[0][1]
        first_perp_x = math.cos(first_beta)
        first_perp_y = math.sin(first_beta)
        gap_x = first_perp_x * (track[0][2] - track[-1][2])
        gap_y = first_perp_y * (track[0][3] - track[-1][3])
        if math.sqrt(gap_x * gap_x + gap_y * gap_y) > TRACK_DETAIL_STEP:
            return False

        # Kerbs where the track keeps turning the same way sharply for a few tiles.
        border = [False] * len(track)
        for i in range(len(track)):
            good = True
            oneside = 0.0
            for neg in range(BORDER_MIN_COUNT):
                beta1 = track[i - neg - 0][1]
                beta2 = track[i - neg - 1][1]
                good &= abs(beta1 - beta2) > TRACK_TURN_RATE * 0.2
                oneside += _sign(beta1 - beta2)
            good &= abs(oneside) == BORDER_MIN_COUNT
            border[i] = good
        for i in range(len(track)):
            for neg in range(BORDER_MIN_COUNT):
                border[i - neg] |= border[i]

        for i in range(len(track)):
            _, beta1, x1, y1 = track[i]
            _, beta2, x2, y2 = track[i - 1]
            cos1, sin1, cos2, sin2 = (
                math.cos(beta1),
                math.sin(beta1),
                math.cos(beta2),
                math.sin(beta2),
            )
            road1_l = (x1 - TRACK_WIDTH * cos1, y1 - TRACK_WIDTH * sin1)
            road1_r = (x1 + TRACK_WIDTH * cos1, y1 + TRACK_WIDTH * sin1)
            road2_l = (x2 - TRACK_WIDTH * cos2, y2 - TRACK_WIDTH * sin2)
            road2_r = (x2 + TRACK_WIDTH * cos2, y2 + TRACK_WIDTH * sin2)
            vertices = [road1_l, road1_r, road2_r, road2_l]
            self.fd_tile.shape.vertices = vertices
            tile = self.world.CreateStaticBody(fixtures=self.fd_tile)
            tile.userData = tile
            tile.color = self.road_color + 0.01 * (i % 3) * 255
            tile.road_visited = False
            tile.road_friction = 1.0
            tile.idx = i
            tile.fixtures[0].sensor = True
            self.road_poly.append((vertices, tile.color))
            self.road.append(tile)
            if border[i]:
                side = _sign(beta2 - beta1)
                b1_l = (x1 + side * TRACK_WIDTH * cos1, y1 + side * TRACK_WIDTH * sin1)
                b1_r = (
                    x1 + side * (TRACK_WIDTH + BORDER) * cos1,
                    y1 + side * (TRACK_WIDTH + BORDER) * sin1,
                )
                b2_l = (x2 + side * TRACK_WIDTH * cos2, y2 + side * TRACK_WIDTH * sin2)
                b2_r = (
                    x2 + side * (TRACK_WIDTH + BORDER) * cos2,
                    y2 + side * (TRACK_WIDTH + BORDER) * sin2,
                )
                kerb = (255, 255, 255) if i % 2 == 0 else (255, 0, 0)
                self.road_poly.append(([b1_l, b1_r, b2_r, b2_l], kerb))
        self.track = track
        return True

    # ---------------------------------------------------------------- episode
    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[np.ndarray, dict[str, Any]]:
        """Generate a new track (and colours, with ``domain_randomize``) and place the car.

        Returns the frame after one step without action, as Gymnasium does.
        """
        super().reset(seed=seed)
        self._destroy()
        self._contacts = FrictionDetector(self, self.lap_complete_percent)
        self.world.contactListener = self._contacts
        self.reward = 0.0
        self.prev_reward = 0.0
        self.tile_visited_count = 0
        self.t = 0.0
        self.new_lap = False
        self.road_poly: list[tuple[list[tuple[float, float]], Any]] = []
        if self.domain_randomize:
            randomize = True
            if isinstance(options, dict) and "randomize" in options:
                randomize = options["randomize"]
            self._reinit_colors(randomize)
        while not self._create_track():
            if self.verbose:
                print(
                    "retry to generate track (normal if there are not many"
                    "instances of this message)"
                )
        self._road_xy = np.array([poly for poly, _ in self.road_poly], dtype=np.float64)
        self._road_xy = self._road_xy.reshape(-1, 2)
        self.car = Car(self.world, *self.track[0][1:4])
        if self.render_mode == "human":
            self.render()
        return self.step(None)[0], {}

    def step(self, action: Any) -> tuple[np.ndarray, float, bool, bool, dict[str, Any]]:
        """Steer, accelerate and brake as ``action`` says, advance one frame, draw the view.

        ``None`` (used by ``reset``) steps without touching the controls or the reward.

        Raises:
            palaestra.error.InvalidAction: for a discrete action outside ``Discrete(5)``.
        """
        car = self.car
        assert car is not None, "You forgot to call reset()"
        if action is not None:
            if self.continuous:
                action = np.asarray(action).astype(np.float64)
                car.steer(-action[0])
                car.gas(action[1])
                car.brake(action[2])
            else:
                if not (action.__class__ is int and 0 <= action < 5) and not (
                    self.action_space.contains(action)
                ):
                    raise InvalidAction(
                        f"you passed the invalid action `{action}`. "
                        f"The supported action_space is `{self.action_space}`"
                    )
                car.steer(-0.6 * (action == 1) + 0.6 * (action == 2))
                car.gas(0.2 * (action == 3))
                car.brake(0.8 * (action == 4))

        car.step(1.0 / FPS)
        self.world.Step(1.0 / FPS, 6 * 30, 2 * 30)
        self.t += 1.0 / FPS
        self.state = self._render("state_pixels")

        step_reward: float = 0
        terminated = False
        info: dict[str, Any] = {}
        if action is not None:
            self.reward -= 0.1
            car.fuel_spent = 0.0  # fuel is not part of the reward
            step_reward = self.reward - self.prev_reward
            self.prev_reward = self.reward
            if self.tile_visited_count == len(self.track) or self.new_lap:
                terminated = True
                info["lap_finished"] = True
            x, y = car.hull.position
            if abs(x) > PLAYFIELD or abs(y) > PLAYFIELD:
                terminated = True
                info["lap_finished"] = False
                step_reward = -100
        if self.render_mode == "human":
            self.render()
        return self.state, step_reward, terminated, False, info

    # ---------------------------------------------------------------- drawing
    def render(self) -> np.ndarray | None:
        """Draw the scene: 600x400 for ``"rgb_array"``, 96x96 for ``"state_pixels"``.

        ``"human"`` shows the 1000x800 scene in a window. Without a render mode it warns and
        returns ``None``.

        Raises:
            DependencyNotInstalled: if pygame is missing.
        """
        if self.render_mode is None:
            warn_no_render_mode(self)
            return None
        return self._render(self.render_mode)

    def _render(self, mode: str) -> np.ndarray | None:
        assert mode in self.metadata["render_modes"]
        pygame = import_pygame()
        if "t" not in self.__dict__ or self.car is None:
            return None  # not reset yet
        car = self.car
        hull = car.hull
        angle = -hull.angle
        zoom = 0.1 * SCALE * max(1 - self.t, 0) + ZOOM * SCALE * min(self.t, 1)
        hx, hy = hull.position
        scroll_x = -hx * zoom
        scroll_y = -hy * zoom
        c, s = rotation(angle)
        translation = (
            WINDOW_W / 2 + (c * scroll_x - s * scroll_y),
            WINDOW_H / 4 + (s * scroll_x + c * scroll_y),
        )
        self.surf = surface = pygame.Surface((WINDOW_W, WINDOW_H))
        self._render_road(surface, zoom, translation, (c, s))
        car.draw(
            surface, zoom, translation, angle, mode not in ("state_pixels_list", "state_pixels")
        )
        self.surf = surface = pygame.transform.flip(surface, False, True)
        self._render_indicators(surface, WINDOW_W, WINDOW_H)
        surface.blit(*self._score_text(pygame))

        if mode == "human":
            if self._window is None:
                self._window = Window((WINDOW_W, WINDOW_H), FPS, "CarRacing")
            self._window.show(surface, fill=True)
            return None
        if mode == "rgb_array":
            return self._create_image_array(surface, (VIDEO_W, VIDEO_H))
        if mode == "state_pixels":
            return self._create_image_array(surface, (STATE_W, STATE_H))
        return None

    def _score_text(self, pygame: Any) -> tuple[Any, Any]:
        """Return the score label and where it goes; the font and the last label are kept."""
        if self._font is None or not pygame.font.get_init():
            pygame.font.init()
            self._font = pygame.font.Font(pygame.font.get_default_font(), 42)
        label = f"{self.reward:04.0f}"
        if self._text is None or self._text[0] != label:
            text = self._font.render(label, True, (255, 255, 255), (0, 0, 0))
            rect = text.get_rect()
            rect.center = (60, WINDOW_H - WINDOW_H * 2.5 / 40.0)
            self._text = (label, (text, rect))
        return self._text[1]

    def _transform(
        self, points: np.ndarray, zoom: float, translation: tuple[float, float], rot: Any
    ) -> tuple[np.ndarray, np.ndarray]:
        c, s = rot
        x, y = points[:, 0], points[:, 1]
        return (c * x - s * y) * zoom + translation[0], (s * x + c * y) * zoom + translation[1]

    def _draw_polygons(
        self,
        surface: Any,
        points: np.ndarray,
        colors: Any,
        zoom: float,
        translation: tuple[float, float],
        rot: Any,
    ) -> None:
        """Draw quadrilaterals the way the reference does, skipping those off the frame.

        The reference draws a polygon when any corner lies within ``MAX_SHAPE_DIM`` of the
        frame; gfxdraw then truncates the corners to integers. Of those, a polygon whose
        integer corners all lie past one edge of the frame changes no pixel, so it is skipped.
        """
        gfxdraw = import_pygame().gfxdraw
        px, py = self._transform(points, zoom, translation, rot)
        px, py = px.reshape(-1, 4), py.reshape(-1, 4)
        near = (
            (px >= -MAX_SHAPE_DIM)
            & (px <= WINDOW_W + MAX_SHAPE_DIM)
            & (py >= -MAX_SHAPE_DIM)
            & (py <= WINDOW_H + MAX_SHAPE_DIM)
        ).any(axis=1)
        ix, iy = px.astype(np.int64), py.astype(np.int64)
        on_frame = (
            (ix.max(axis=1) >= -_OFF_FRAME)
            & (ix.min(axis=1) <= WINDOW_W + _OFF_FRAME)
            & (iy.max(axis=1) >= -_OFF_FRAME)
            & (iy.min(axis=1) <= WINDOW_H + _OFF_FRAME)
        )
        drawn = np.flatnonzero(near & on_frame).tolist()
        if not drawn:
            return
        corners = np.stack([ix[drawn], iy[drawn]], axis=-1).tolist()
        for index, polygon in zip(drawn, corners):
            color = colors(index)
            gfxdraw.aapolygon(surface, polygon, color)
            gfxdraw.filled_polygon(surface, polygon, color)

    def _render_road(
        self, surface: Any, zoom: float, translation: tuple[float, float], rot: Any
    ) -> None:
        gfxdraw = import_pygame().gfxdraw
        bounds = PLAYFIELD
        field = np.array(
            [(bounds, bounds), (bounds, -bounds), (-bounds, -bounds), (-bounds, bounds)]
        )
        fx, fy = self._transform(field, zoom, translation, rot)
        field_corners = list(zip(fx.tolist(), fy.tolist()))
        gfxdraw.aapolygon(surface, field_corners, self.bg_color)
        gfxdraw.filled_polygon(surface, field_corners, self.bg_color)
        grass_color = self.grass_color
        self._draw_polygons(surface, self._grass, lambda _: grass_color, zoom, translation, rot)
        road_poly = self.road_poly
        self._draw_polygons(
            surface,
            self._road_xy,
            lambda i: [int(k) for k in road_poly[i][1]],
            zoom,
            translation,
            rot,
        )

    def _render_indicators(self, surface: Any, width: int, height: int) -> None:
        import pygame.draw

        s = width / 40.0
        h = height / 40.0
        panel = [(width, height), (width, height - 5 * h), (0, height - 5 * h), (0, height)]
        pygame.draw.polygon(surface, color=(0, 0, 0), points=panel)

        def vertical(place: float, val: float) -> list[tuple[float, float]]:
            return [
                (place * s, height - (h + h * val)),
                ((place + 1) * s, height - (h + h * val)),
                ((place + 1) * s, height - h),
                ((place + 0) * s, height - h),
            ]

        def horizontal(place: float, val: float) -> list[tuple[float, float]]:
            return [
                ((place + 0) * s, height - 4 * h),
                ((place + val) * s, height - 4 * h),
                ((place + val) * s, height - 2 * h),
                ((place + 0) * s, height - 2 * h),
            ]

        assert self.car is not None
        hull = self.car.hull
        wheels = self.car.wheels
        vx, vy = hull.linearVelocity
        true_speed = math.sqrt(vx * vx + vy * vy)
        bars = [
            (true_speed, vertical(5, 0.02 * true_speed), (255, 255, 255)),
            (wheels[0].omega, vertical(7, 0.01 * wheels[0].omega), (0, 0, 255)),
            (wheels[1].omega, vertical(8, 0.01 * wheels[1].omega), (0, 0, 255)),
            (wheels[2].omega, vertical(9, 0.01 * wheels[2].omega), (51, 0, 255)),
            (wheels[3].omega, vertical(10, 0.01 * wheels[3].omega), (51, 0, 255)),
        ]
        steering = wheels[0].joint.angle
        bars.append((steering, horizontal(20, -10.0 * steering), (0, 255, 0)))
        spin = hull.angularVelocity
        bars.append((spin, horizontal(30, -0.8 * spin), (255, 0, 0)))
        for value, points, color in bars:
            if abs(value) > 1e-4:
                pygame.draw.polygon(surface, points=points, color=color)

    def _create_image_array(self, surface: Any, size: tuple[int, int]) -> np.ndarray:
        pygame = import_pygame()
        scaled = pygame.transform.smoothscale(surface, size)
        return np.transpose(pygame.surfarray.array3d(scaled), axes=(1, 0, 2))

    def close(self) -> None:
        """Close the render window, if one is open."""
        if self._window is not None:
            self._window.close()
            self._window = None
            self.isopen = False
        self._font = self._text = None  # closing quits pygame, fonts included
