"""BipedalWalker: drive the four joint motors of a two-legged robot across rough terrain.

The hull, two thighs and two shins are Box2D bodies joined by motorised revolute joints; the
terrain is a chain of static edges (with stumps, stairs and pits in the hardcore variant).
Ten lidar rays report the distance to the ground ahead. The same seed and actions give the
same trajectory as Gymnasium's ``BipedalWalker-v3``: one world lives as long as the
environment, and bodies are created and destroyed in the order that builds the same world.

Example:
    >>> import palaestra as gym
    >>> env = gym.make("BipedalWalker-v3")
    >>> observation, info = env.reset(seed=0)
    >>> observation.shape, env.action_space.shape
    ((24,), (4,))
    >>> env.close()
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from palaestra import error, spaces
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
    "BipedalWalker",
    "BipedalWalkerHardcore",
    "BipedalWalkerHeuristics",
    "ContactDetector",
]

FPS = 50
SCALE = 30.0  # pixels per metre
MOTORS_TORQUE = 80
SPEED_HIP = 4
SPEED_KNEE = 6
LIDAR_RANGE = 160 / SCALE
INITIAL_RANDOM = 5
HULL_POLY = [(-30, +9), (+6, +9), (+34, +1), (+34, -8), (-30, -8)]
LEG_DOWN = -8 / SCALE
LEG_W, LEG_H = 8 / SCALE, 34 / SCALE
VIEWPORT_W = 600
VIEWPORT_H = 400
TERRAIN_STEP = 14 / SCALE
TERRAIN_LENGTH = 200  # in steps
TERRAIN_HEIGHT = VIEWPORT_H / SCALE / 4
TERRAIN_GRASS = 10  # longest stretch of grass between obstacles, in steps
TERRAIN_STARTPAD = 20  # flat start, in steps
FRICTION = 2.5

GRASS, STUMP, STAIRS, PIT, _OBSTACLE_END = range(5)
FINISH_X = (TERRAIN_LENGTH - TERRAIN_GRASS) * TERRAIN_STEP
MOTOR_COST = 0.00035 * MOTORS_TORQUE
OBSTACLE_FILL, OBSTACLE_EDGE = (255, 255, 255), (153, 153, 153)
GROUND_COLOR = (102, 153, 76)
SKY_COLOR = (215, 215, 255)
HULL_FILL, HULL_EDGE = (127, 51, 229), (76, 76, 127)
LIDAR_ANGLES = [(math.sin(1.5 * i / 10.0), math.cos(1.5 * i / 10.0)) for i in range(10)]


def _hull_fixture() -> Any:
    return b2.fixtureDef(
        shape=b2.polygonShape(vertices=[(x / SCALE, y / SCALE) for x, y in HULL_POLY]),
        density=5.0,
        friction=0.1,
        categoryBits=0x0020,
        maskBits=0x001,  # collide only with the ground
        restitution=0.0,
    )


def _leg_fixture(width: float) -> Any:
    return b2.fixtureDef(
        shape=b2.polygonShape(box=(width / 2, LEG_H / 2)),
        density=1.0,
        restitution=0.0,
        categoryBits=0x0020,
        maskBits=0x001,
    )


class _WalkerBodies:
    """The body and joint definitions of every episode's robot, made once per environment.

    Box2D copies a definition into each body or joint it creates, so one set serves every
    episode and skips the keyword machinery of ``CreateDynamicBody(**kwargs)``; per episode
    only the joints' bodies (and the reference angles their keyword construction computes
    from those bodies) change. ``terrain`` makes every static terrain body.

    Example:
        >>> bodies = _WalkerBodies(1.0, 2.0)
        >>> len(bodies.legs), len(bodies.joints)
        (4, 4)
    """

    def __init__(self, init_x: float, init_y: float) -> None:
        self.terrain = b2.bodyDef(type=b2.staticBody)
        self.hull = b2.bodyDef(type=b2.dynamicBody, position=(init_x, init_y))
        self.legs, self.joints = [], []
        for side in (-1, +1):
            self.legs.append(
                b2.bodyDef(
                    type=b2.dynamicBody,
                    position=(init_x, init_y - LEG_H / 2 - LEG_DOWN),
                    angle=side * 0.05,
                )
            )
            self.joints.append(
                b2.revoluteJointDef(
                    localAnchorA=(0, LEG_DOWN),
                    localAnchorB=(0, LEG_H / 2),
                    enableMotor=True,
                    enableLimit=True,
                    maxMotorTorque=MOTORS_TORQUE,
                    motorSpeed=side,
                    lowerAngle=-0.8,
                    upperAngle=1.1,
                )
            )
            self.legs.append(
                b2.bodyDef(
                    type=b2.dynamicBody,
                    position=(init_x, init_y - LEG_H * 3 / 2 - LEG_DOWN),
                    angle=side * 0.05,
                )
            )
            self.joints.append(
                b2.revoluteJointDef(
                    localAnchorA=(0, -LEG_H / 2),
                    localAnchorB=(0, LEG_H / 2),
                    enableMotor=True,
                    enableLimit=True,
                    maxMotorTorque=MOTORS_TORQUE,
                    motorSpeed=1,
                    lowerAngle=-1.6,
                    upperAngle=-0.1,
                )
            )

    @staticmethod
    def join(world: Any, joint: Any, body_a: Any, body_b: Any) -> Any:
        """Create ``joint``'s joint between two bodies, as a definition built with them would."""
        joint.bodyA = body_a
        joint.bodyB = body_b
        joint.referenceAngle = body_b.angle - body_a.angle
        return world.CreateJoint(joint)


class ContactDetector(ContactRelay, b2.contactListener):
    """Record the hull touching the ground (a fall) and each shin's ground contact.

    Args:
        env: the walker whose ``game_over`` and shins' ``ground_contact`` it sets.

    Example:
        >>> env = BipedalWalker()
        >>> _ = env.reset(seed=0)
        >>> type(env.world.contactListener).__name__
        'ContactDetector'
    """

    env: BipedalWalker

    def _touch(self, contact: Any, begin: bool) -> None:
        env = self.env
        bodies = (contact.fixtureA.body, contact.fixtureB.body)
        if begin and env.hull in bodies:
            env.game_over = True
        for shin in (env.legs[1], env.legs[3]):
            if shin in bodies:
                shin.ground_contact = begin


class _Lidar(b2.rayCastCallback):
    """One lidar ray: remembers the nearest ground point hit (fraction 1.0 when none)."""

    def __init__(self):
        super().__init__()
        self.fraction = 1.0
        self.p1: Any = (0.0, 0.0)
        self.p2: Any = (0.0, 0.0)

    def ReportFixture(self, fixture: Any, point: Any, normal: Any, fraction: float) -> float:
        if (fixture.filterData.categoryBits & 1) == 0:
            return -1  # not ground: ignore it and go on
        self.p2 = point
        self.fraction = fraction
        return fraction  # look only for nearer hits from now on


class BipedalWalker(Env, EzPickle):
    """Walk a two-legged robot to the far end of the terrain without falling on its hull.

    Observation (float32, 24): hull angle, angular velocity, horizontal and vertical speed;
    per leg the hip angle and speed, the knee angle and speed and a ground-contact flag; ten
    lidar distances. Actions: four torques in ``[-1, 1]`` for hip 1, knee 1, hip 2, knee 2.
    Reward: 130 per terrain length walked (scaled), a penalty for tilting the hull and a small
    one for torque; -100 and termination when the hull touches the ground or the robot leaves
    the terrain's left end; reaching the far end terminates too.

    Args:
        render_mode: ``None``, ``"human"`` or ``"rgb_array"`` (600x400 frames).
        hardcore: add stumps, stairs and pits to the terrain.

    Example:
        >>> env = BipedalWalker(hardcore=True)
        >>> observation, _ = env.reset(seed=1)
        >>> observation, reward, terminated, truncated, info = env.step(np.zeros(4))
        >>> observation.dtype, info
        (dtype('float32'), {})
    """

    metadata = {"render_modes": ["human", "rgb_array"], "render_fps": FPS}

    def __init__(self, render_mode: str | None = None, hardcore: bool = False):
        EzPickle.__init__(self, render_mode, hardcore)
        self.render_mode = render_mode
        self.hardcore = hardcore
        self.isopen = True
        # One world for the environment's lifetime; episodes replace its bodies.
        self.world = b2.world()
        self.terrain: list[Any] = []
        self.hull: Any = None
        self.legs: list[Any] = []
        self.joints: list[Any] = []
        self.prev_shaping: float | None = None
        self.game_over = False
        self.scroll = 0.0
        self.lidar_render = 0
        self._window: Window | None = None
        self._hull_fd = _hull_fixture()
        self._leg_fd = _leg_fixture(LEG_W)
        self._lower_fd = _leg_fixture(0.8 * LEG_W)
        self._bodies = _WalkerBodies(
            TERRAIN_STEP * TERRAIN_STARTPAD / 2, TERRAIN_HEIGHT + 2 * LEG_H
        )
        self.fd_polygon = b2.fixtureDef(
            shape=b2.polygonShape(vertices=[(0, 0), (1, 0), (1, -1), (0, -1)]), friction=FRICTION
        )
        self.fd_edge = b2.fixtureDef(
            shape=b2.edgeShape(vertices=[(0, 0), (1, 1)]), friction=FRICTION, categoryBits=0x0001
        )

        pi = math.pi
        high = np.array(
            [pi, 5.0, 5.0, 5.0, pi, 5.0, pi, 5.0, 5.0, pi, 5.0, pi, 5.0, 5.0] + [1.0] * 10,
            dtype=np.float32,
        )
        low = -high
        low[8] = low[13] = -0.0
        self.observation_space = spaces.Box(low, high)
        self.action_space = spaces.Box(
            np.array([-1, -1, -1, -1], dtype=np.float32), np.array([1, 1, 1, 1], dtype=np.float32)
        )

    # ---------------------------------------------------------------- terrain
    def _destroy(self) -> None:
        if not self.terrain:
            return
        world = self.world
        world.contactListener = None
        for body in self.terrain:
            world.DestroyBody(body)
        self.terrain = []
        world.DestroyBody(self.hull)
        self.hull = None
        for body in self.legs:
            world.DestroyBody(body)
        self.legs = []
        self.joints = []

    def _static_polygon(self, corners: list[tuple[float, float]]) -> None:
        self.fd_polygon.shape.vertices = corners
        body = self.world.CreateBody(self._bodies.terrain)
        body.CreateFixture(self.fd_polygon)
        body.color1, body.color2 = OBSTACLE_FILL, OBSTACLE_EDGE
        self.terrain.append(body)

    def _generate_terrain(self, hardcore: bool) -> None:
        rng = self.np_random
        step = TERRAIN_STEP
        state = GRASS
        velocity = 0.0
        y = TERRAIN_HEIGHT
        counter = TERRAIN_STARTPAD
        oneshot = False
        self.terrain = []
        xs: list[float] = []
        ys: list[float] = []
        stair_steps, stair_width, stair_height = 0, 0, 0
        original_y = 0.0
        for i in range(TERRAIN_LENGTH):
            x = i * step
            xs.append(x)
            if state == GRASS and not oneshot:
                gap = TERRAIN_HEIGHT - y
                velocity = 0.8 * velocity + 0.01 * (1.0 if gap > 0 else -1.0 if gap < 0 else 0.0)
                if i > TERRAIN_STARTPAD:
                    velocity += rng.uniform(-1, 1) / SCALE
                y += velocity
            elif state == PIT and oneshot:
                counter = int(rng.integers(3, 5))
                pit = [(x, y), (x + step, y), (x + step, y - 4 * step), (x, y - 4 * step)]
                self._static_polygon(pit)
                self._static_polygon([(px + step * counter, py) for px, py in pit])
                counter += 2
                original_y = y
            elif state == PIT and not oneshot:
                y = original_y
                if counter > 1:
                    y -= 4 * step
            elif state == STUMP and oneshot:
                counter = int(rng.integers(1, 3))
                size = counter * step
                self._static_polygon([(x, y), (x + size, y), (x + size, y + size), (x, y + size)])
            elif state == STAIRS and oneshot:
                stair_height = +1 if rng.random() > 0.5 else -1
                stair_width = int(rng.integers(4, 5))
                stair_steps = int(rng.integers(3, 5))
                original_y = y
                for s in range(stair_steps):
                    left = x + (s * stair_width) * step
                    right = x + ((1 + s) * stair_width) * step
                    top = y + (s * stair_height) * step
                    bottom = y + (-1 + s * stair_height) * step
                    self._static_polygon(
                        [(left, top), (right, top), (right, bottom), (left, bottom)]
                    )
                counter = stair_steps * stair_width
            elif state == STAIRS and not oneshot:
                climbed = stair_steps * stair_width - counter - stair_height
                y = original_y + (climbed / stair_width * stair_height) * step
            oneshot = False
            ys.append(y)
            counter -= 1
            if counter == 0:
                counter = int(rng.integers(TERRAIN_GRASS // 2, TERRAIN_GRASS))
                if state == GRASS and hardcore:
                    state = int(rng.integers(1, _OBSTACLE_END))
                else:
                    state = GRASS
                oneshot = True

        self.terrain_x, self.terrain_y = xs, ys
        self.terrain_poly = []
        world, terrain, fd_edge = self.world, self._bodies.terrain, self.fd_edge
        shape = fd_edge.shape
        for i in range(TERRAIN_LENGTH - 1):
            edge = [(xs[i], ys[i]), (xs[i + 1], ys[i + 1])]
            # As setting the shape's two vertices does (it has no ghost vertices).
            shape.vertex1, shape.vertex2 = edge
            body = world.CreateBody(terrain)
            body.CreateFixture(fd_edge)
            body.color1 = body.color2 = (76, 255 if i % 2 == 0 else 204, 76)
            self.terrain.append(body)
            self.terrain_poly.append(([*edge, (edge[1][0], 0), (edge[0][0], 0)], GROUND_COLOR))
        self.terrain.reverse()

    def _generate_clouds(self) -> None:
        rng = self.np_random
        self.cloud_poly = []
        for _ in range(TERRAIN_LENGTH // 20):
            x = rng.uniform(0, TERRAIN_LENGTH) * TERRAIN_STEP
            y = VIEWPORT_H / SCALE * 3 / 4
            poly = []
            for a in range(5):
                px = (
                    x
                    + 15 * TERRAIN_STEP * math.sin(3.14 * 2 * a / 5)
                    + rng.uniform(0, 5 * TERRAIN_STEP)
                )
                py = (
                    y
                    + 5 * TERRAIN_STEP * math.cos(3.14 * 2 * a / 5)
                    + rng.uniform(0, 5 * TERRAIN_STEP)
                )
                poly.append((px, py))
            self.cloud_poly.append((poly, min(p[0] for p in poly), max(p[0] for p in poly)))

    # ---------------------------------------------------------------- episode set-up
    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[np.ndarray, dict[str, Any]]:
        """Generate new terrain and clouds and stand a new robot at the start.

        Returns the observation after one step with idle motors, as Gymnasium does.
        """
        super().reset(seed=seed)
        self._destroy()
        world = self.world
        self._contacts = ContactDetector(self)
        world.contactListener = self._contacts
        self.game_over = False
        self.prev_shaping = None
        self.scroll = 0.0
        self.lidar_render = 0
        self._generate_terrain(self.hardcore)
        self._generate_clouds()

        bodies = self._bodies
        self.hull = world.CreateBody(bodies.hull)
        self.hull.CreateFixture(self._hull_fd)
        self.hull.color1, self.hull.color2 = HULL_FILL, HULL_EDGE
        self.hull.ApplyForceToCenter(
            (self.np_random.uniform(-INITIAL_RANDOM, INITIAL_RANDOM), 0), True
        )
        self.legs, self.joints = [], []
        for side, (thigh_def, shin_def), (hip, knee) in zip(
            (-1, +1), (bodies.legs[:2], bodies.legs[2:]), (bodies.joints[:2], bodies.joints[2:])
        ):
            fill = (153 - side * 25, 76 - side * 25, 127 - side * 25)
            edge = (102 - side * 25, 51 - side * 25, 76 - side * 25)
            thigh = world.CreateBody(thigh_def)
            thigh.CreateFixture(self._leg_fd)
            thigh.color1, thigh.color2 = fill, edge
            self.legs.append(thigh)
            self.joints.append(bodies.join(world, hip, self.hull, thigh))
            shin = world.CreateBody(shin_def)
            shin.CreateFixture(self._lower_fd)
            shin.color1, shin.color2 = fill, edge
            shin.ground_contact = False
            self.legs.append(shin)
            self.joints.append(bodies.join(world, knee, thigh, shin))
        self.drawlist = [*self.terrain, *self.legs, self.hull]
        self.lidar = [_Lidar() for _ in range(10)]

        if self.render_mode == "human":
            self.render()
        return self.step(np.array([0, 0, 0, 0]))[0], {}

    # ---------------------------------------------------------------- dynamics
    def step(self, action: Any) -> tuple[np.ndarray, float, bool, bool, dict[str, Any]]:
        """Set the four motors from ``action``, advance the world one frame, read the lidar.

        Each motor turns at full speed in the direction of its action, with a torque limit
        proportional to the action's magnitude (clipped to 1).

        Raises:
            AssertionError: before ``reset``.
        """
        assert self.hull is not None, "You forgot to call reset()"
        action = np.asarray(action)
        if action.ndim != 1 or len(action) < 4:
            raise IndexError(
                f"BipedalWalker takes four torques (hip 1, knee 1, hip 2, knee 2), as in "
                f"{self.action_space}; got {action!r}"
            )
        magnitude = np.clip(np.abs(action), 0, 1)
        directions = np.sign(action).tolist()
        torques = (MOTORS_TORQUE * magnitude).tolist()
        joints = self.joints
        for joint, speed, direction, torque in zip(
            joints, (SPEED_HIP, SPEED_KNEE, SPEED_HIP, SPEED_KNEE), directions, torques
        ):
            joint.motorSpeed = float(speed * direction)
            joint.maxMotorTorque = float(torque)

        world = self.world
        world.Step(1.0 / FPS, 6 * 30, 2 * 30)

        hull = self.hull
        pos = hull.position
        x, y = pos
        vx, vy = hull.linearVelocity
        for lidar, (sin_a, cos_a) in zip(self.lidar, LIDAR_ANGLES):
            lidar.fraction = 1.0
            lidar.p1 = pos
            lidar.p2 = (x + sin_a * LIDAR_RANGE, y - cos_a * LIDAR_RANGE)
            world.RayCast(lidar, pos, lidar.p2)
        hip0, knee0, hip1, knee1 = joints
        angle = hull.angle
        state = [
            angle,
            2.0 * hull.angularVelocity / FPS,
            0.3 * vx * (VIEWPORT_W / SCALE) / FPS,  # scaled to about -1..1
            0.3 * vy * (VIEWPORT_H / SCALE) / FPS,
            hip0.angle,
            hip0.speed / SPEED_HIP,
            knee0.angle + 1.0,
            knee0.speed / SPEED_KNEE,
            1.0 if self.legs[1].ground_contact else 0.0,
            hip1.angle,
            hip1.speed / SPEED_HIP,
            knee1.angle + 1.0,
            knee1.speed / SPEED_KNEE,
            1.0 if self.legs[3].ground_contact else 0.0,
        ]
        state += [lidar.fraction for lidar in self.lidar]
        self.scroll = x - VIEWPORT_W / SCALE / 5

        shaping = 130 * x / SCALE  # walking the whole terrain earns about 300
        shaping -= 5.0 * abs(angle)  # keep the hull level
        reward: float = 0
        if self.prev_shaping is not None:
            reward = shaping - self.prev_shaping
        self.prev_shaping = shaping
        # numpy scalars, as the reference does: a float32 action makes the reward float32.
        for cost in MOTOR_COST * magnitude:
            reward -= cost

        terminated = False
        if self.game_over or x < 0:
            reward = -100
            terminated = True
        if x > FINISH_X:
            terminated = True
        if self.render_mode == "human":
            self.render()
        return np.array(state, dtype=np.float32), reward, terminated, False, {}

    # ---------------------------------------------------------------- drawing
    def render(self) -> np.ndarray | None:
        """Draw sky, clouds, terrain, one sweeping lidar ray, the robot and the start flag.

        The camera follows the hull. Returns a ``(400, 600, 3)`` uint8 frame in
        ``"rgb_array"`` mode; ``"human"`` shows it in a window. Without a render mode it
        warns and returns ``None``.

        Raises:
            DependencyNotInstalled: if pygame is missing.
        """
        if self.render_mode is None:
            warn_no_render_mode(self)
            return None
        pygame = import_pygame()
        if self.hull is None:
            return None  # nothing to draw before the first reset
        gfxdraw = pygame.gfxdraw
        if self.render_mode == "human" and self._window is None:
            self._window = Window((VIEWPORT_W, VIEWPORT_H), FPS, "BipedalWalker")
        scroll = self.scroll
        left = scroll * SCALE
        surface = pygame.Surface((VIEWPORT_W + max(0.0, scroll) * SCALE, VIEWPORT_H))
        sky = [
            (left, 0),
            (left + VIEWPORT_W, 0),
            (left + VIEWPORT_W, VIEWPORT_H),
            (left, VIEWPORT_H),
        ]
        pygame.draw.polygon(surface, color=SKY_COLOR, points=sky)

        for poly, x1, x2 in self.cloud_poly:  # clouds drift at half the camera's speed
            if x2 < scroll / 2 or x1 > scroll / 2 + VIEWPORT_W / SCALE:
                continue
            points = [(p[0] * SCALE + scroll * SCALE / 2, p[1] * SCALE) for p in poly]
            pygame.draw.polygon(surface, color=(255, 255, 255), points=points)
            gfxdraw.aapolygon(surface, points, (255, 255, 255))

        for poly, color in self.terrain_poly:
            if poly[1][0] < scroll or poly[0][0] > scroll + VIEWPORT_W / SCALE:
                continue
            points = [[px * SCALE, py * SCALE] for px, py in poly]
            pygame.draw.polygon(surface, color=color, points=points)
            gfxdraw.aapolygon(surface, points, color)

        # One lidar ray at a time, sweeping out and back over the first 20 of 100 frames.
        self.lidar_render = (self.lidar_render + 1) % 100
        i = self.lidar_render
        count = len(self.lidar)
        if i < 2 * count:
            ray = self.lidar[i] if i < count else self.lidar[count - i - 1]
            pygame.draw.line(
                surface,
                color=(255, 0, 0),
                start_pos=(ray.p1[0] * SCALE, ray.p1[1] * SCALE),
                end_pos=(ray.p2[0] * SCALE, ray.p2[1] * SCALE),
                width=1,
            )

        for body in self.drawlist:
            transform = body.transform
            for fixture in body.fixtures:
                path = [transform * v * SCALE for v in fixture.shape.vertices]
                if len(path) > 2:
                    pygame.draw.polygon(surface, color=body.color1, points=path)
                    gfxdraw.aapolygon(surface, path, body.color1)
                    path.append(path[0])
                    pygame.draw.polygon(surface, color=body.color2, points=path, width=1)
                    gfxdraw.aapolygon(surface, path, body.color2)
                else:
                    pygame.draw.aaline(
                        surface, start_pos=path[0], end_pos=path[1], color=body.color1
                    )

        pole_bottom = TERRAIN_HEIGHT * SCALE
        pole_top = pole_bottom + 50
        x = TERRAIN_STEP * 3 * SCALE
        pygame.draw.aaline(
            surface, color=(0, 0, 0), start_pos=(x, pole_bottom), end_pos=(x, pole_top)
        )
        flag = [(x, pole_top), (x, pole_top - 10), (x + 25, pole_top - 5)]
        pygame.draw.polygon(surface, color=(230, 51, 0), points=flag)
        pygame.draw.lines(surface, color=(0, 0, 0), points=[*flag, flag[0]], width=1, closed=False)

        surface = pygame.transform.flip(surface, False, True)
        if self.render_mode == "human":
            assert self._window is not None
            self._window.show(surface, (-scroll * SCALE, 0))
            return None
        return surface_to_array(surface)[:, -VIEWPORT_W:]

    def close(self) -> None:
        """Close the render window, if one is open."""
        if self._window is not None:
            self._window.close()
            self._window = None
            self.isopen = False


class BipedalWalkerHardcore:
    """Not constructible: make ``BipedalWalkerHardcore-v3`` or pass ``hardcore=True``.

    Raises:
        palaestra.error.Error: always, explaining how to get the hardcore walker.

    Example:
        >>> BipedalWalkerHardcore()
        Traceback (most recent call last):
        ...
        palaestra.error.Error: Error initializing BipedalWalkerHardcore Environment...
    """

    def __init__(self):
        raise error.Error(
            "Error initializing BipedalWalkerHardcore Environment.\n"
            "Currently, we do not support initializing this mode of environment by calling "
            "the class directly.\n"
            "To use this environment, instead create it by specifying the hardcore keyword "
            'in gym.make, i.e.\ngym.make("BipedalWalker-v3", hardcore=True)'
        )


class BipedalWalkerHeuristics:
    """A hand-written gait for the walker: stand on one leg, swing the other, push off.

    Each call to :meth:`step_heuristic` takes the current observation and returns the next
    action; the controller keeps its phase and which leg is moving between calls.

    Example:
        >>> env = BipedalWalker()
        >>> walker = BipedalWalkerHeuristics()
        >>> observation, _ = env.reset(seed=0)
        >>> for _ in range(300):
        ...     observation, *_ = env.step(walker.step_heuristic(observation))
        >>> env.unwrapped.hull.position.x > 10
        True
    """

    STAY_ON_ONE_LEG, PUT_OTHER_DOWN, PUSH_OFF = 1, 2, 3
    SPEED = 0.29  # faster makes it fall forward
    SUPPORT_KNEE_ANGLE = +0.1

    def __init__(self):
        self.state = self.STAY_ON_ONE_LEG
        self.moving_leg = 0
        self.supporting_leg = 1 - self.moving_leg
        self.supporting_knee_angle: Any = self.SUPPORT_KNEE_ANGLE
        self.a = np.array([0.0, 0.0, 0.0, 0.0])

    def step_heuristic(self, s: Any) -> np.ndarray:
        """Return the action (a float64 array of four torques) for observation ``s``."""
        moving_base = 4 + 5 * self.moving_leg
        supporting_base = 4 + 5 * self.supporting_leg
        hip_target: list[Any] = [None, None]  # -0.8 .. +1.1
        knee_target: list[Any] = [None, None]  # -0.6 .. +0.9
        hip_todo = [0.0, 0.0]
        knee_todo = [0.0, 0.0]

        if self.state == self.STAY_ON_ONE_LEG:
            hip_target[self.moving_leg] = 1.1
            knee_target[self.moving_leg] = -0.6
            self.supporting_knee_angle += 0.03
            if s[2] > self.SPEED:
                self.supporting_knee_angle += 0.03
            self.supporting_knee_angle = min(self.supporting_knee_angle, self.SUPPORT_KNEE_ANGLE)
            knee_target[self.supporting_leg] = self.supporting_knee_angle
            if s[supporting_base + 0] < 0.10:  # the supporting leg is behind
                self.state = self.PUT_OTHER_DOWN
        if self.state == self.PUT_OTHER_DOWN:
            hip_target[self.moving_leg] = +0.1
            knee_target[self.moving_leg] = self.SUPPORT_KNEE_ANGLE
            knee_target[self.supporting_leg] = self.supporting_knee_angle
            if s[moving_base + 4]:
                self.state = self.PUSH_OFF
                self.supporting_knee_angle = min(s[moving_base + 2], self.SUPPORT_KNEE_ANGLE)
        if self.state == self.PUSH_OFF:
            knee_target[self.moving_leg] = self.supporting_knee_angle
            knee_target[self.supporting_leg] = +1.0
            if s[supporting_base + 2] > 0.88 or s[2] > 1.2 * self.SPEED:
                self.state = self.STAY_ON_ONE_LEG
                self.moving_leg = 1 - self.moving_leg
                self.supporting_leg = 1 - self.moving_leg

        if hip_target[0]:
            hip_todo[0] = 0.9 * (hip_target[0] - s[4]) - 0.25 * s[5]
        if hip_target[1]:
            hip_todo[1] = 0.9 * (hip_target[1] - s[9]) - 0.25 * s[10]
        if knee_target[0]:
            knee_todo[0] = 4.0 * (knee_target[0] - s[6]) - 0.25 * s[7]
        if knee_target[1]:
            knee_todo[1] = 4.0 * (knee_target[1] - s[11]) - 0.25 * s[12]
        hip_todo[0] -= 0.9 * (0 - s[0]) - 1.5 * s[1]  # keep the hull level
        hip_todo[1] -= 0.9 * (0 - s[0]) - 1.5 * s[1]
        knee_todo[0] -= 15.0 * s[3]  # damp vertical oscillations
        knee_todo[1] -= 15.0 * s[3]

        self.a[0] = hip_todo[0]
        self.a[1] = knee_todo[0]
        self.a[2] = hip_todo[1]
        self.a[3] = knee_todo[1]
        self.a = np.clip(0.5 * self.a, -1.0, 1.0)
        return self.a
