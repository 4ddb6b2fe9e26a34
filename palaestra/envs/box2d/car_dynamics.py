"""A top-down racing car for CarRacing: a hull on four wheels with tyre friction.

Each wheel is a Box2D body on a revolute joint (the front two steer); every step the car
computes each tyre's spin and grip by hand and pushes the wheel bodies with the resulting
forces, then the world step moves everything. Skidding tyres leave marks (particles) that
the full-size renderings show.

Example:
    >>> from palaestra.envs.box2d._common import import_box2d
    >>> world = import_box2d().b2.world((0, 0))
    >>> car = Car(world, 0.0, 0.0, 0.0)
    >>> car.gas(1.0)
    >>> car.step(1 / 50)
    >>> world.Step(1 / 50, 6 * 30, 2 * 30)
    >>> round(car.wheels[2].omega, 3) > 0
    True
    >>> car.destroy()
"""

from __future__ import annotations

import math
from collections import deque
from dataclasses import dataclass
from typing import Any

from palaestra.envs.box2d._common import import_box2d

Box2D = import_box2d()
b2 = Box2D.b2

__all__ = ["Car", "Particle", "rotation", "SIZE"]

SIZE = 0.02  # metres per car-model unit
ENGINE_POWER = 100000000 * SIZE * SIZE
WHEEL_MOMENT_OF_INERTIA = 4000 * SIZE * SIZE
FRICTION_LIMIT = 1000000 * SIZE * SIZE  # friction ~ mass ~ size squared
GRIP = 205000 * SIZE * SIZE
WHEEL_R = 27
WHEEL_W = 14
WHEELPOS = [(-55, +80), (+55, +80), (-55, -82), (+55, -82)]
HULL_POLY1 = [(-60, +130), (+60, +130), (+60, +110), (-60, +110)]
HULL_POLY2 = [(-15, +120), (+15, +120), (+20, +20), (-20, 20)]
HULL_POLY3 = [
    (+25, +20),
    (+50, -10),
    (+50, -40),
    (+20, -90),
    (-20, -90),
    (-50, -40),
    (-50, -10),
    (-25, +20),
]
HULL_POLY4 = [(-50, -120), (+50, -120), (+50, -90), (-50, -90)]
WHEEL_POLY = [
    (-WHEEL_W, +WHEEL_R),
    (+WHEEL_W, +WHEEL_R),
    (+WHEEL_W, -WHEEL_R),
    (-WHEEL_W, -WHEEL_R),
]
WHEEL_COLOR = (0, 0, 0)
WHEEL_WHITE = (77, 77, 77)
MUD_COLOR = (102, 102, 0)
BRAKE_FORCE = 15  # radians per second
HULL_COLOR = (0.8, 0.0, 0.0)

_HALF_PI = math.pi / 2
_TWO_PI = 2 * math.pi
_EPSILON = 1e-6
_QUARTER_TURNS = ((1.0, 0.0), (0.0, 1.0), (-1.0, 0.0), (0.0, -1.0))


def rotation(angle: float) -> tuple[float, float]:
    """Return ``(cos, sin)`` of ``angle`` as pygame's ``Vector2.rotate_rad`` uses them.

    The angle is first reduced to ``[0, 2 pi)``; within 1e-6 of a quarter turn the rotation
    is exact. Rotating ``(x, y)`` gives ``(c * x - s * y, s * x + c * y)``, bit for bit what
    ``Vector2((x, y)).rotate_rad(angle)`` returns.

    Example:
        >>> rotation(math.pi / 2 + 1e-9)
        (0.0, 1.0)
        >>> c, s = rotation(1.0)
        >>> round(c, 6), round(s, 6)
        (0.540302, 0.841471)
    """
    angle = math.fmod(angle, _TWO_PI)
    if angle < 0:
        angle += _TWO_PI
    if math.fmod(angle + _EPSILON, _HALF_PI) < 2 * _EPSILON:
        return _QUARTER_TURNS[int((angle + _EPSILON) / _HALF_PI) % 4]
    return math.cos(angle), math.sin(angle)


def _sign(value: float) -> float:
    return 1.0 if value > 0 else -1.0 if value < 0 else 0.0


@dataclass
class Particle:
    """A skid mark: a polyline of wheel positions, dark on road and mud-coloured on grass.

    Example:
        >>> Particle(color=MUD_COLOR, poly=[(0.0, 0.0), (1.0, 0.0)], grass=True).ttl
        1
    """

    color: tuple[int, int, int]
    poly: list[tuple[float, float]]
    grass: Any
    ttl: int = 1


class Car:
    """The car: hull and wheel bodies in ``world``, its controls and its tyre model.

    Args:
        world: the Box2D world to create the bodies in.
        init_angle: the car's heading in radians.
        init_x: the hull's starting x.
        init_y: the hull's starting y.

    Example:
        >>> world = b2.world((0, 0))
        >>> car = Car(world, 0.5, 10.0, 20.0)
        >>> len(car.wheels), len(car.hull.fixtures)
        (4, 4)
    """

    def __init__(self, world: Any, init_angle: float, init_x: float, init_y: float):
        self.world = world
        self.hull = world.CreateDynamicBody(
            position=(init_x, init_y),
            angle=init_angle,
            fixtures=[
                b2.fixtureDef(
                    shape=b2.polygonShape(vertices=[(x * SIZE, y * SIZE) for x, y in poly]),
                    density=1.0,
                )
                for poly in (HULL_POLY1, HULL_POLY2, HULL_POLY3, HULL_POLY4)
            ],
        )
        self.hull.color = HULL_COLOR
        self.wheels: list[Any] = []
        self.fuel_spent = 0.0
        for wx, wy in WHEELPOS:
            wheel = world.CreateDynamicBody(
                position=(init_x + wx * SIZE, init_y + wy * SIZE),
                angle=init_angle,
                fixtures=b2.fixtureDef(
                    shape=b2.polygonShape(vertices=[(x * SIZE, y * SIZE) for x, y in WHEEL_POLY]),
                    density=0.1,
                    categoryBits=0x0020,
                    maskBits=0x001,
                    restitution=0.0,
                ),
            )
            wheel.wheel_rad = WHEEL_R * SIZE
            wheel.color = WHEEL_COLOR
            wheel.gas = 0.0
            wheel.brake = 0.0
            wheel.steer = 0.0
            wheel.phase = 0.0  # how far the wheel has turned
            wheel.omega = 0.0  # its angular velocity
            wheel.skid_start = None
            wheel.skid_particle = None
            joint = b2.revoluteJointDef(
                bodyA=self.hull,
                bodyB=wheel,
                localAnchorA=(wx * SIZE, wy * SIZE),
                localAnchorB=(0, 0),
                enableMotor=True,
                enableLimit=True,
                maxMotorTorque=180 * 900 * SIZE * SIZE,
                motorSpeed=0,
                lowerAngle=-0.4,
                upperAngle=+0.4,
            )
            wheel.joint = world.CreateJoint(joint)
            wheel.tiles = set()
            wheel.userData = wheel
            self.wheels.append(wheel)
        self.drawlist = [*self.wheels, self.hull]
        self.particles: deque[Particle] = deque(maxlen=30)

    def gas(self, gas: float) -> None:
        """Open the throttle to ``gas`` in ``[0, 1]`` (rear-wheel drive, +0.1 per step at most).

        Example:
            >>> car = Car(b2.world((0, 0)), 0.0, 0.0, 0.0)
            >>> car.gas(1.0)
            >>> car.wheels[2].gas
            0.1
        """
        gas = min(max(gas, 0), 1)
        for wheel in self.wheels[2:4]:
            diff = gas - wheel.gas
            if diff > 0.1:
                diff = 0.1  # speed up gradually, slow down at once
            wheel.gas += diff

    def brake(self, b: float) -> None:
        """Brake all wheels with strength ``b`` (0.9 and above locks them)."""
        for wheel in self.wheels:
            wheel.brake = b

    def steer(self, s: float) -> None:
        """Turn the front wheels towards ``s`` (-1 right .. +1 left); they follow gradually."""
        self.wheels[0].steer = s
        self.wheels[1].steer = s

    def step(self, dt: float) -> None:
        """Turn the steering joints, spin the wheels and apply the tyre forces for ``dt`` s."""
        for wheel in self.wheels:
            joint = wheel.joint
            error = wheel.steer - joint.angle
            joint.motorSpeed = _sign(error) * min(50.0 * abs(error), 3.0)

            grass = True
            friction_limit = FRICTION_LIMIT * 0.6  # grass grip when on no tile
            for tile in wheel.tiles:
                friction_limit = max(friction_limit, FRICTION_LIMIT * tile.road_friction)
                grass = False

            forward = wheel.GetWorldVector((0, 1))
            sideways = wheel.GetWorldVector((1, 0))
            fx, fy = forward
            sx, sy = sideways
            vx, vy = wheel.linearVelocity
            forward_speed = fx * vx + fy * vy
            side_speed = sx * vx + sy * vy

            omega = wheel.omega
            gas = wheel.gas
            omega += dt * ENGINE_POWER * gas / WHEEL_MOMENT_OF_INERTIA / (abs(omega) + 5.0)
            self.fuel_spent += dt * ENGINE_POWER * gas
            brake = wheel.brake
            if brake >= 0.9:
                omega = 0
            elif brake > 0:
                direction = -_sign(omega)
                val = BRAKE_FORCE * brake
                if abs(val) > abs(omega):
                    val = abs(omega)  # at low speed braking stops the wheel
                omega += direction * val
            wheel.phase += omega * dt

            rim_speed = omega * wheel.wheel_rad
            f_force = -forward_speed + rim_speed  # the tyre pulls towards the speed difference
            p_force = -side_speed
            f_force *= 205000 * SIZE * SIZE
            p_force *= 205000 * SIZE * SIZE
            force = math.sqrt(f_force * f_force + p_force * p_force)

            if abs(force) > 2.0 * friction_limit:
                mark = wheel.skid_particle
                if mark and mark.grass == grass and len(mark.poly) < 30:
                    position = wheel.position
                    mark.poly.append((position[0], position[1]))
                elif wheel.skid_start is None:
                    wheel.skid_start = wheel.position
                else:
                    wheel.skid_particle = self._create_particle(
                        wheel.skid_start, wheel.position, grass
                    )
                    wheel.skid_start = None
            else:
                wheel.skid_start = None
                wheel.skid_particle = None

            if abs(force) > friction_limit:  # sliding: the grip saturates
                f_force /= force
                p_force /= force
                force = friction_limit
                f_force *= force
                p_force *= force

            omega -= dt * f_force * wheel.wheel_rad / WHEEL_MOMENT_OF_INERTIA
            wheel.omega = omega
            wheel.ApplyForceToCenter(
                (p_force * sx + f_force * fx, p_force * sy + f_force * fy), True
            )

    def draw(
        self,
        surface: Any,
        zoom: float,
        translation: tuple[float, float],
        angle: float,
        draw_particles: bool = True,
    ) -> None:
        """Draw the car (and its skid marks) on a pygame ``surface``, camera-transformed.

        World points are rotated by ``angle``, scaled by ``zoom`` and shifted by
        ``translation`` (in pixels, y down before the frame is flipped).
        """
        import pygame.draw

        c, s = rotation(angle)
        tx, ty = translation

        def to_screen(points: Any) -> list[tuple[float, float]]:
            return [((c * x - s * y) * zoom + tx, (s * x + c * y) * zoom + ty) for x, y in points]

        if draw_particles:
            for particle in self.particles:
                pygame.draw.lines(
                    surface,
                    color=particle.color,
                    points=to_screen(particle.poly),
                    width=2,
                    closed=False,
                )
        for body in self.drawlist:
            transform = body.transform
            color = [int(k * 255) for k in body.color]
            for fixture in body.fixtures:
                path = to_screen([tuple(transform * v) for v in fixture.shape.vertices])
                pygame.draw.polygon(surface, color=color, points=path)
                if body is self.hull:
                    continue
                # The white stripe shows the wheel turning: the visible half of a band.
                a1 = body.phase
                a2 = body.phase + 1.2  # radians
                s1, s2 = math.sin(a1), math.sin(a2)
                c1, c2 = math.cos(a1), math.cos(a2)
                if s1 > 0 and s2 > 0:
                    continue
                if s1 > 0:
                    c1 = _sign(c1)
                if s2 > 0:
                    c2 = _sign(c2)
                stripe = [
                    (-WHEEL_W * SIZE, +WHEEL_R * c1 * SIZE),
                    (+WHEEL_W * SIZE, +WHEEL_R * c1 * SIZE),
                    (+WHEEL_W * SIZE, +WHEEL_R * c2 * SIZE),
                    (-WHEEL_W * SIZE, +WHEEL_R * c2 * SIZE),
                ]
                path = to_screen([tuple(transform * v) for v in stripe])
                pygame.draw.polygon(surface, color=WHEEL_WHITE, points=path)

    def _create_particle(self, point1: Any, point2: Any, grass: bool) -> Particle:
        particle = Particle(
            color=MUD_COLOR if grass else WHEEL_COLOR,
            poly=[(point1[0], point1[1]), (point2[0], point2[1])],
            grass=grass,
        )
        self.particles.append(particle)
        return particle

    def destroy(self) -> None:
        """Remove the hull and the wheels from the world."""
        self.world.DestroyBody(self.hull)
        self.hull = None
        for wheel in self.wheels:
            self.world.DestroyBody(wheel)
        self.wheels = []
