"""LunarLander: fire a lander's engines to touch down softly between two flags.

The moon's surface, the lander and its two spring-loaded legs are Box2D bodies; each step
applies the engine impulses, advances the world by 1/50 s and reads the lander's state. The
same seed and actions give the same trajectory as Gymnasium's ``LunarLander-v3``: bodies,
fixtures and impulses are handed to the engine in the order that builds the same world.

Example:
    >>> import palaestra as gym
    >>> env = gym.make("LunarLander-v3")
    >>> observation, info = env.reset(seed=0)
    >>> observation.shape, env.action_space
    ((8,), Discrete(4))
    >>> env.close()
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from palaestra import error, logger, spaces
from palaestra.core import Env
from palaestra.envs.box2d._common import (
    ContactRelay,
    Window,
    import_box2d,
    import_pygame,
    surface_to_array,
    warn_no_render_mode,
)
from palaestra.utils import EzPickle

Box2D = import_box2d()
b2 = Box2D.b2

__all__ = [
    "ContactDetector",
    "LunarLander",
    "LunarLanderContinuous",
    "heuristic",
    "demo_heuristic_lander",
]

FPS = 50
SCALE = 30.0  # pixels per metre
MAIN_ENGINE_POWER = 13.0
SIDE_ENGINE_POWER = 0.6
INITIAL_RANDOM = 1000.0  # bound of the random push at the start of an episode
LANDER_POLY = [(-14, +17), (-17, 0), (-17, -10), (+17, -10), (+17, 0), (+14, +17)]
LEG_AWAY = 20
LEG_DOWN = 18
LEG_W, LEG_H = 2, 8
LEG_SPRING_TORQUE = 40
SIDE_ENGINE_HEIGHT = 14
SIDE_ENGINE_AWAY = 12
MAIN_ENGINE_Y_LOCATION = 4
VIEWPORT_W = 600
VIEWPORT_H = 400

CHUNKS = 11  # terrain points
WORLD_W = VIEWPORT_W / SCALE
WORLD_H = VIEWPORT_H / SCALE
HALF_W = VIEWPORT_W / SCALE / 2
HALF_H = VIEWPORT_H / SCALE / 2
MAIN_ENGINE_OFFSET = MAIN_ENGINE_Y_LOCATION / SCALE
LEG_TOP = LEG_DOWN / SCALE
LANDER_COLOR = (128, 102, 230)
LANDER_EDGE = (77, 77, 128)
FLAG_COLOR = (204, 204, 0)

# Body tags, kept in each body's userData so contacts are classified without Python lookups.
_GROUND, _LANDER, _LEG0, _LEG1, _PARTICLE = range(5)


class ContactDetector(ContactRelay, b2.contactListener):
    """Record the lander's crash and each leg's ground contact as Box2D reports contacts.

    Args:
        env: the lander whose ``game_over`` and legs' ``ground_contact`` it sets.

    Example:
        >>> env = LunarLander()
        >>> _ = env.reset(seed=0)
        >>> type(env.world.contactListener).__name__
        'ContactDetector'
    """

    env: LunarLander

    def _touch(self, contact: Any, begin: bool) -> None:
        env = self.env
        for tag in (contact.fixtureA.body.userData, contact.fixtureB.body.userData):
            if tag == _LANDER:
                if begin:
                    env.game_over = True
            elif tag in (_LEG0, _LEG1):
                env.legs[tag - _LEG0].ground_contact = begin


class _LanderParts:
    """The definitions every episode builds its world from, made once per environment.

    Box2D copies a definition, and the shape it names, into each body, fixture or joint it
    creates; so one set of definitions serves every episode, and building from them skips
    the keyword machinery of ``CreateBody(**kwargs)``. Per episode only the terrain edge's
    end points and the joints' bodies (and reference angles) change. The world they build is
    the one the keyword calls build: same bodies, fixtures and joints, created in the same
    order with the same values.

    Example:
        >>> parts = _LanderParts()
        >>> parts.edge_fixture.friction == parts.lander_fixture.friction
        True
    """

    def __init__(self) -> None:
        self.moon = b2.bodyDef(type=b2.staticBody)
        # The floor: an edge along y = 0 with the default fixture values.
        self.floor = b2.edgeShape(vertices=[(0, 0), (WORLD_W, 0)])
        self.floor_fixture = b2.fixtureDef(shape=self.floor)
        # One edge shape, moved to each terrain chunk in turn (a fixture copies its shape).
        self.edge = b2.edgeShape(vertices=[(0, 0), (1, 0)])
        self.edge_fixture = b2.fixtureDef(shape=self.edge, density=0, friction=0.1)
        start_x, start_y = WORLD_W / 2, WORLD_H
        self.lander = b2.bodyDef(type=b2.dynamicBody, position=(start_x, start_y), angle=0.0)
        self.hull = b2.polygonShape(vertices=[(x / SCALE, y / SCALE) for x, y in LANDER_POLY])
        self.lander_fixture = b2.fixtureDef(
            shape=self.hull,
            density=5.0,
            friction=0.1,
            categoryBits=0x0010,
            maskBits=0x001,
            restitution=0.0,
        )
        self.leg_box = b2.polygonShape(box=(LEG_W / SCALE, LEG_H / SCALE))
        self.leg_fixture = b2.fixtureDef(
            shape=self.leg_box, density=1.0, restitution=0.0, categoryBits=0x0020, maskBits=0x001
        )
        self.legs = []
        self.joints = []
        for side in (-1, +1):
            self.legs.append(
                b2.bodyDef(
                    type=b2.dynamicBody,
                    position=(start_x - side * LEG_AWAY / SCALE, start_y),
                    angle=side * 0.05,
                )
            )
            # Each leg swings within half a radian, its spring pushing it outwards.
            joint = b2.revoluteJointDef(
                localAnchorA=(0, 0),
                localAnchorB=(side * LEG_AWAY / SCALE, LEG_DOWN / SCALE),
                enableMotor=True,
                enableLimit=True,
                maxMotorTorque=LEG_SPRING_TORQUE,
                motorSpeed=+0.3 * side,
            )
            joint.lowerAngle = +0.9 - 0.5 if side < 0 else -0.9
            joint.upperAngle = 0.9 if side < 0 else -0.9 + 0.5
            self.joints.append(joint)


class LunarLander(Env, EzPickle):
    """Land a rocket on the pad between the flags, discrete or continuous engines.

    Observation (float32, 8): x and y relative to the pad (scaled), x and y velocity, angle,
    angular velocity, and 1.0 for each leg touching the ground. Discrete actions: 0 nothing,
    1 left engine, 2 main engine, 3 right engine. Continuous actions (two in ``[-1, 1]``): the
    main engine fires at 50-100 % above 0; the side engines fire for ``|a[1]| > 0.5``, left
    below and right above. Reward: the change of a shaping potential (distance, speed, tilt,
    leg contact), minus 0.3 per main-engine frame and 0.03 per side-engine frame; -100 when
    the body touches the ground or leaves the screen, +100 when the lander comes to rest
    (both terminate the episode).

    Args:
        render_mode: ``None``, ``"human"`` or ``"rgb_array"`` (600x400 frames).
        continuous: continuous instead of discrete engine control.
        gravity: the moon's gravity, in ``(-12, 0)``.
        enable_wind: push the lander with a wind and a turbulence torque while airborne.
        wind_power: the wind's largest force (``0`` to ``20`` recommended).
        turbulence_power: the turbulence's largest torque (``0`` to ``2`` recommended).

    Raises:
        AssertionError: for ``gravity`` outside ``(-12, 0)``, or an invalid discrete action.

    Example:
        >>> env = LunarLander(continuous=True)
        >>> observation, _ = env.reset(seed=3)
        >>> observation, reward, terminated, truncated, info = env.step(np.array([1.0, 0.0]))
        >>> bool(terminated), info
        (False, {})
    """

    metadata = {"render_modes": ["human", "rgb_array"], "render_fps": FPS}

    def __init__(
        self,
        render_mode: str | None = None,
        continuous: bool = False,
        gravity: float = -10.0,
        enable_wind: bool = False,
        wind_power: float = 15.0,
        turbulence_power: float = 1.5,
    ):
        EzPickle.__init__(
            self, render_mode, continuous, gravity, enable_wind, wind_power, turbulence_power
        )
        assert -12.0 < gravity < 0.0, (
            f"gravity (current value: {gravity}) must be between -12 and 0"
        )
        if not 0.0 <= wind_power <= 20.0:
            logger.warn(
                "wind_power value is recommended to be between 0.0 and 20.0, "
                f"(current value: {wind_power})"
            )
        if not 0.0 <= turbulence_power <= 2.0:
            logger.warn(
                "turbulence_power value is recommended to be between 0.0 and 2.0, "
                f"(current value: {turbulence_power})"
            )
        self.gravity = gravity
        self.wind_power = wind_power
        self.turbulence_power = turbulence_power
        self.enable_wind = enable_wind
        self.continuous = continuous
        self.render_mode = render_mode

        self.world = b2.world(gravity=(0, gravity))
        self._parts: _LanderParts | None = None
        self.moon: Any = None
        self.lander: Any = None
        self.legs: list[Any] = []
        self.particles: list[Any] = []
        self.prev_shaping: float | None = None
        self.game_over = False
        self._window: Window | None = None
        self.isopen = True

        bound = np.array([2.5, 2.5, 10.0, 10.0, 2 * math.pi, 10.0, 1.0, 1.0], dtype=np.float32)
        low = -bound
        low[6:] = -0.0
        self.observation_space = spaces.Box(low, bound)
        if continuous:
            self.action_space = spaces.Box(-1, +1, (2,), dtype=np.float32)
        else:
            self.action_space = spaces.Discrete(4)

    # ---------------------------------------------------------------- episode set-up
    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[np.ndarray, dict[str, Any]]:
        """Build a new moon and lander and give the lander a random push.

        Returns the observation after one step without engines, as Gymnasium does.
        """
        super().reset(seed=seed)
        rng = self.np_random
        parts = self._parts
        if parts is None:
            parts = self._parts = _LanderParts()
            self._contacts = ContactDetector(self)
        # A fresh world per episode: dropping the old one frees its bodies with it.
        self.particles = []
        self.world = world = b2.world(gravity=(0, self.gravity))
        world.contactListener = self._contacts
        self.game_over = False
        self.prev_shaping = None

        height = rng.uniform(0, WORLD_H / 2, size=(CHUNKS + 1,)).tolist()
        chunk_x = [WORLD_W / (CHUNKS - 1) * i for i in range(CHUNKS)]
        self.helipad_x1 = chunk_x[CHUNKS // 2 - 1]
        self.helipad_x2 = chunk_x[CHUNKS // 2 + 1]
        self.helipad_y = WORLD_H / 4
        for i in range(CHUNKS // 2 - 2, CHUNKS // 2 + 3):
            height[i] = self.helipad_y
        smooth_y = [0.33 * (height[i - 1] + height[i + 0] + height[i + 1]) for i in range(CHUNKS)]

        self.moon = moon = world.CreateBody(parts.moon)
        moon.CreateFixture(parts.floor_fixture)
        moon.userData = _GROUND
        self.sky_polys = []
        edge, edge_fixture = parts.edge, parts.edge_fixture
        for i in range(CHUNKS - 1):
            left, right = (chunk_x[i], smooth_y[i]), (chunk_x[i + 1], smooth_y[i + 1])
            edge.vertex1 = left
            edge.vertex2 = right
            moon.CreateFixture(edge_fixture)
            self.sky_polys.append([left, right, (right[0], WORLD_H), (left[0], WORLD_H)])

        self.lander = lander = world.CreateBody(parts.lander)
        lander.CreateFixture(parts.lander_fixture)
        lander.userData = _LANDER
        lander.ApplyForceToCenter(
            (
                rng.uniform(-INITIAL_RANDOM, INITIAL_RANDOM),
                rng.uniform(-INITIAL_RANDOM, INITIAL_RANDOM),
            ),
            True,
        )
        if self.enable_wind:
            self.wind_idx = int(rng.integers(-9999, 9999))
            self.torque_idx = int(rng.integers(-9999, 9999))

        self.legs = []
        for tag, leg_def, joint in zip((_LEG0, _LEG1), parts.legs, parts.joints):
            leg = world.CreateBody(leg_def)
            leg.CreateFixture(parts.leg_fixture)
            leg.userData = tag
            leg.ground_contact = False
            joint.bodyA = lander
            joint.bodyB = leg
            # As a joint definition built with its bodies sets it.
            joint.referenceAngle = leg.angle - lander.angle
            leg.joint = world.CreateJoint(joint)
            self.legs.append(leg)
        self.drawlist = [self.lander, *self.legs]

        if self.render_mode == "human":
            self.render()
        return self.step(np.array([0, 0]) if self.continuous else 0)[0], {}

    def _fire(
        self,
        ox: float,
        oy: float,
        at: tuple[float, float],
        mass: float,
        engine_power: float,
        power: float,
    ) -> None:
        """Push the lander along ``-(ox, oy)`` at ``at``, and a new particle the other way.

        Only a rendered lander makes exhaust particles; they are bodies of the world too.
        """
        particle = self._create_particle(mass, at[0], at[1], power)
        particle.ApplyLinearImpulse(
            (ox * engine_power * power, oy * engine_power * power), at, True
        )
        self.lander.ApplyLinearImpulse(
            (-ox * engine_power * power, -oy * engine_power * power), at, True
        )

    def _create_particle(self, mass: float, x: float, y: float, ttl: float) -> Any:
        particle = self.world.CreateDynamicBody(
            position=(x, y),
            angle=0.0,
            fixtures=b2.fixtureDef(
                shape=b2.circleShape(radius=2 / SCALE, pos=(0, 0)),
                density=mass,
                friction=0.1,
                categoryBits=0x0100,
                maskBits=0x001,
                restitution=0.3,
            ),
        )
        particle.userData = _PARTICLE
        particle.ttl = ttl
        self.particles.append(particle)
        self._clean_particles(False)
        return particle

    def _clean_particles(self, everything: bool) -> None:
        particles = self.particles
        while particles and (everything or particles[0].ttl < 0):
            self.world.DestroyBody(particles.pop(0))

    # ---------------------------------------------------------------- dynamics
    def step(self, action: Any) -> tuple[np.ndarray, float, bool, bool, dict[str, Any]]:
        """Fire the engines ``action`` asks for and advance the world by one frame.

        Raises:
            AssertionError: before ``reset``, or for a discrete action outside ``Discrete(4)``.
        """
        lander = self.lander
        assert lander is not None, "You forgot to call reset()"
        legs = self.legs
        if self.enable_wind and not (legs[0].ground_contact or legs[1].ground_contact):
            idx = self.wind_idx
            wind = math.tanh(math.sin(0.02 * idx) + math.sin(math.pi * 0.01 * idx))
            self.wind_idx = idx + 1
            lander.ApplyForceToCenter((wind * self.wind_power, 0.0), True)
            idx = self.torque_idx
            torque = math.tanh(math.sin(0.02 * idx) + math.sin(math.pi * 0.01 * idx))
            self.torque_idx = idx + 1
            lander.ApplyTorque(torque * self.turbulence_power, True)

        if self.continuous:
            try:
                throttle, lateral = float(action[0]), float(action[1])
            except (IndexError, TypeError, KeyError) as e:
                raise IndexError(
                    f"invalid index to scalar variable: the continuous lander takes two "
                    f"values (main, lateral), as in {self.action_space}; got {action!r}"
                ) from e
            throttle = min(max(throttle, -1.0), 1.0)
            lateral = min(max(lateral, -1.0), 1.0)
            main_on = throttle > 0.0
            side_on = abs(lateral) > 0.5
        else:
            if action.__class__ is not int or not 0 <= action < 4:
                # A vector env hands over numpy int64 scalars: the same check, done here.
                if not (action.__class__ is np.int64 and 0 <= action < 4):
                    assert self.action_space.contains(action), (
                        f"{action!r} ({type(action)}) invalid "
                    )
                action = int(action)
            main_on = action == 2
            side_on = action == 1 or action == 3

        angle = lander.angle
        tip_x, tip_y = math.sin(angle), math.cos(angle)
        side_x, side_y = -tip_y, tip_x
        # Two draws of uniform(-1, 1), as -1 + 2 * random(): the same numbers from the same
        # stream, without building an array.
        random = self.np_random.random
        d0 = (-1.0 + 2.0 * random()) / SCALE
        d1 = (-1.0 + 2.0 * random()) / SCALE
        rendering = self.render_mode is not None

        m_power = 0.0
        if main_on:
            m_power = (min(throttle, 1.0) + 1.0) * 0.5 if self.continuous else 1.0
            reach = MAIN_ENGINE_OFFSET + 2 * d0
            ox = tip_x * reach + side_x * d1
            oy = -tip_y * reach - side_y * d1
            position = lander.position
            at = (position.x + ox, position.y + oy)
            if rendering:
                self._fire(ox, oy, at, 3.5, MAIN_ENGINE_POWER, m_power)
            else:
                lander.ApplyLinearImpulse(
                    (-ox * MAIN_ENGINE_POWER * m_power, -oy * MAIN_ENGINE_POWER * m_power), at, True
                )

        s_power = 0.0
        if side_on:
            if self.continuous:
                direction = 1.0 if lateral > 0 else -1.0
                s_power = min(abs(lateral), 1.0)
            else:
                direction = action - 2
                s_power = 1.0
            across = 3 * d1 + direction * SIDE_ENGINE_AWAY / SCALE
            ox = tip_x * d0 + side_x * across
            oy = -tip_y * d0 - side_y * across
            position = lander.position
            at = (
                position.x + ox - tip_x * 17 / SCALE,
                position.y + oy + tip_y * SIDE_ENGINE_HEIGHT / SCALE,
            )
            if rendering:
                self._fire(ox, oy, at, 0.7, SIDE_ENGINE_POWER, s_power)
            else:
                lander.ApplyLinearImpulse(
                    (-ox * SIDE_ENGINE_POWER * s_power, -oy * SIDE_ENGINE_POWER * s_power), at, True
                )

        self.world.Step(1.0 / FPS, 6 * 30, 2 * 30)

        # Each property of the lander read once (every read crosses into Box2D).
        position = lander.position
        velocity = lander.linearVelocity
        s0 = (position.x - HALF_W) / HALF_W
        s1 = (position.y - (self.helipad_y + LEG_TOP)) / HALF_H
        s2 = velocity.x * HALF_W / FPS
        s3 = velocity.y * HALF_H / FPS
        s4 = lander.angle
        contact0 = 1.0 if legs[0].ground_contact else 0.0
        contact1 = 1.0 if legs[1].ground_contact else 0.0
        observation = np.array(
            [s0, s1, s2, s3, s4, 20.0 * lander.angularVelocity / FPS, contact0, contact1],
            dtype=np.float32,
        )
        shaping = (
            -100 * math.sqrt(s0 * s0 + s1 * s1)
            - 100 * math.sqrt(s2 * s2 + s3 * s3)
            - 100 * abs(s4)
            + 10 * contact0
            + 10 * contact1
        )
        reward: float = 0
        if self.prev_shaping is not None:
            reward = shaping - self.prev_shaping
        self.prev_shaping = shaping
        reward -= m_power * 0.30  # fuel
        reward -= s_power * 0.03

        terminated = False
        if self.game_over or abs(s0) >= 1.0:
            terminated = True
            reward = -100
        if not lander.awake:
            terminated = True
            reward = +100
        if self.render_mode == "human":
            self.render()
        return observation, reward, terminated, False, {}

    # ---------------------------------------------------------------- drawing
    def render(self) -> np.ndarray | None:
        """Draw the moon, the lander, the flags and the engine exhaust.

        Returns an ``(400, 600, 3)`` uint8 frame in ``"rgb_array"`` mode; ``"human"`` shows
        it in a window. Without a render mode it warns and returns ``None``.

        Raises:
            DependencyNotInstalled: if pygame is missing.
        """
        if self.render_mode is None:
            warn_no_render_mode(self)
            return None
        pygame = import_pygame()
        if self.lander is None:
            return None  # nothing to draw before the first reset
        gfxdraw = pygame.gfxdraw
        if self.render_mode == "human" and self._window is None:
            self._window = Window((VIEWPORT_W, VIEWPORT_H), FPS, "LunarLander")
        surface = pygame.Surface((VIEWPORT_W, VIEWPORT_H))
        surface.fill((255, 255, 255))

        # Exhaust particles fade from white-hot to dark red and die after a few frames.
        for particle in self.particles:
            particle.ttl -= 0.15
            ttl = particle.ttl
            shade = int(max(0.2, 0.5 * ttl) * 255)
            particle.color1 = particle.color2 = (int(max(0.2, 0.15 + ttl) * 255), shade, shade)
        self._clean_particles(False)

        for sky in self.sky_polys:
            points = [(px * SCALE, py * SCALE) for px, py in sky]
            pygame.draw.polygon(surface, (0, 0, 0), points)
            gfxdraw.aapolygon(surface, points, (0, 0, 0))

        for body in self.particles + self.drawlist:
            if body.userData == _PARTICLE:
                fill, edge = body.color1, body.color2
            else:
                fill, edge = LANDER_COLOR, LANDER_EDGE
            for fixture in body.fixtures:
                transform = body.transform
                shape = fixture.shape
                if type(shape) is b2.circleShape:
                    centre = transform * shape.pos * SCALE
                    radius = shape.radius * SCALE
                    pygame.draw.circle(surface, color=fill, center=centre, radius=radius)
                    pygame.draw.circle(surface, color=edge, center=centre, radius=radius)
                else:
                    path = [transform * v * SCALE for v in shape.vertices]
                    pygame.draw.polygon(surface, color=fill, points=path)
                    gfxdraw.aapolygon(surface, path, fill)
                    pygame.draw.aalines(surface, color=edge, points=path, closed=True)
                # The reference scene repaints the flags after every fixture; anti-aliased
                # edges blend on each pass, so the same passes give the same pixels.
                self._draw_flags(surface, pygame)

        surface = pygame.transform.flip(surface, False, True)
        if self.render_mode == "human":
            assert self._window is not None
            self._window.show(surface)
            return None
        return surface_to_array(surface)

    def _draw_flags(self, surface: Any, pygame: Any) -> None:
        pole_bottom = self.helipad_y * SCALE
        pole_top = pole_bottom + 50
        for x in (self.helipad_x1 * SCALE, self.helipad_x2 * SCALE):
            pygame.draw.line(surface, (255, 255, 255), (x, pole_bottom), (x, pole_top), 1)
            flag = [(x, pole_top), (x, pole_top - 10), (x + 25, pole_top - 5)]
            pygame.draw.polygon(surface, color=FLAG_COLOR, points=flag)
            pygame.gfxdraw.aapolygon(surface, flag, FLAG_COLOR)

    def close(self) -> None:
        """Close the render window, if one is open."""
        if self._window is not None:
            self._window.close()
            self._window = None
            self.isopen = False


def heuristic(env: Any, s: Any) -> Any:
    """Choose the action of a hand-written controller that lands the lander, for ``s``.

    It tilts the lander towards the pad centre, hovers at a height proportional to the
    horizontal offset, and only damps the descent once a leg touches the ground.

    Args:
        env: the environment (possibly wrapped); ``env.unwrapped.continuous`` picks the
            action type.
        s: the current observation.

    Returns:
        An ``int`` action for discrete control, a float64 array of two values otherwise.

    Example:
        >>> env = LunarLander()
        >>> observation, _ = env.reset(seed=0)
        >>> heuristic(env, observation) in (0, 1, 2, 3)
        True
    """
    angle_target = s[0] * 0.5 + s[2] * 1.0  # point towards the pad centre
    angle_target = min(max(angle_target, -0.4), 0.4)  # more than 0.4 rad is too much
    hover_target = 0.55 * np.abs(s[0])  # hover higher further from the pad
    angle_todo = (angle_target - s[4]) * 0.5 - (s[5]) * 1.0
    hover_todo = (hover_target - s[1]) * 0.5 - (s[3]) * 0.5
    if s[6] or s[7]:  # on the ground: only slow the descent
        angle_todo = 0
        hover_todo = -(s[3]) * 0.5
    if env.unwrapped.continuous:
        return np.clip(np.array([hover_todo * 20 - 1, -angle_todo * 20]), -1, +1)
    if hover_todo > np.abs(angle_todo) and hover_todo > 0.05:
        return 2
    if angle_todo < -0.05:
        return 3
    if angle_todo > +0.05:
        return 1
    return 0


def demo_heuristic_lander(env: Any, seed: int | None = None, render: bool = False) -> float:
    """Fly one episode of ``env`` with :func:`heuristic`, printing progress; return its return.

    Args:
        env: a LunarLander environment (possibly wrapped).
        seed: the reset seed.
        render: call ``env.render()`` every step and close the env at the end.

    Example:
        >>> import contextlib, io
        >>> with contextlib.redirect_stdout(io.StringIO()):
        ...     total = demo_heuristic_lander(LunarLander(), seed=0)
        >>> total > 200
        True
    """
    total_reward = 0.0
    steps = 0
    s, _ = env.reset(seed=seed)
    while True:
        a = heuristic(env, s)
        s, r, terminated, truncated, _ = env.step(a)
        total_reward += r
        if render and env.render() is False:
            break
        if steps % 20 == 0 or terminated or truncated:
            print("observations:", " ".join(f"{x:+0.2f}" for x in s))
            print(f"step {steps} total_reward {total_reward:+0.2f}")
        steps += 1
        if terminated or truncated:
            break
    if render:
        env.close()
    return total_reward


class LunarLanderContinuous:
    """Not constructible: make ``LunarLanderContinuous-v3`` or pass ``continuous=True``.

    Raises:
        palaestra.error.Error: always, explaining how to get the continuous lander.

    Example:
        >>> LunarLanderContinuous()
        Traceback (most recent call last):
        ...
        palaestra.error.Error: Error initializing LunarLanderContinuous Environment...
    """

    def __init__(self):
        raise error.Error(
            "Error initializing LunarLanderContinuous Environment.\n"
            "Currently, we do not support initializing this mode of environment by calling "
            "the class directly.\n"
            "To use this environment, instead create it by specifying the continuous keyword "
            'in gym.make, i.e.\ngym.make("LunarLander-v3", continuous=True)'
        )
