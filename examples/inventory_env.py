"""A custom environment, end to end: a small inventory/trading game on palaestra.

The agent manages a stock of one good whose price wanders around a mean. Each step it can
``BUY`` one unit, ``SELL`` one unit, ``HOLD`` its position, or ``WAIT`` (let three price
ticks pass without acting). Holding stock costs a little per unit and tick. The reward is
the change in portfolio value (cash plus stock at the current price) minus holding costs,
so the episode's total reward is its profit.

Observation (``Box``, float32): ``[price, stock, time, profit]`` with time as the fraction
of the episode elapsed. The episode terminates when time reaches 1.

Importing this module registers ``InventoryTrading-v0``. Try it:

    palaestra check examples.inventory_env:InventoryEnv        # from the repository root
    palaestra check examples/inventory_env.py:InventoryEnv     # or by file path
    palaestra train examples.inventory_env:InventoryTrading-v0 --steps 50000
    palaestra eval runs/InventoryTrading-v0-ppo-s0 --episodes 20 --deterministic

or from Python::

    import palaestra as gym
    import examples.inventory_env  # registers the env

    env = gym.make("InventoryTrading-v0")
"""

from __future__ import annotations

from typing import Any

import numpy as np

import palaestra as gym
from palaestra import spaces

BUY, SELL, HOLD, WAIT = range(4)
ACTION_NAMES = ("buy", "sell", "hold", "wait")


class InventoryEnv(gym.Env):
    """Buy low, sell high: one good, a mean-reverting price and a holding cost.

    Args:
        horizon: price ticks per episode.
        max_stock: most units the agent can hold.
        mean_price: the price the random walk reverts to.
        volatility: standard deviation of a price tick.
        holding_cost: cost per unit in stock per tick.
        wait_ticks: ticks that pass on ``WAIT``.
        render_mode: ``None`` or ``"ansi"``.
    """

    metadata = {"render_modes": ["ansi"], "render_fps": 4}

    def __init__(
        self,
        horizon: int = 100,
        max_stock: int = 10,
        mean_price: float = 10.0,
        volatility: float = 1.0,
        holding_cost: float = 0.02,
        wait_ticks: int = 3,
        render_mode: str | None = None,
    ):
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(
                f"render_mode must be None or one of {self.metadata['render_modes']}, "
                f"got {render_mode!r}."
            )
        self.horizon = horizon
        self.max_stock = max_stock
        self.mean_price = mean_price
        self.volatility = volatility
        self.holding_cost = holding_cost
        self.wait_ticks = wait_ticks
        self.render_mode = render_mode
        self.min_price, self.max_price = 0.2 * mean_price, 2.0 * mean_price
        profit_bound = 2.0 * horizon * self.max_price * max_stock
        self.action_space = spaces.Discrete(4)
        self.observation_space = spaces.Box(
            low=np.array([self.min_price, 0.0, 0.0, -profit_bound], dtype=np.float32),
            high=np.array([self.max_price, max_stock, 1.0, profit_bound], dtype=np.float32),
            dtype=np.float32,
        )
        self._profit_bound = profit_bound

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[np.ndarray, dict[str, Any]]:
        super().reset(seed=seed)
        self.price = float(self.np_random.uniform(0.8, 1.2) * self.mean_price)
        self.stock = 0
        self.tick = 0
        self.profit = 0.0
        return self._observation(), {}

    def step(self, action: int) -> tuple[np.ndarray, float, bool, bool, dict[str, Any]]:
        if not self.action_space.contains(action):
            raise ValueError(f"action must be in {self.action_space}, got {action!r}.")
        action = int(action)
        value_before = self.stock * self.price
        cash_flow = 0.0
        if action == BUY and self.stock < self.max_stock:
            self.stock += 1
            cash_flow -= self.price
        elif action == SELL and self.stock > 0:
            self.stock -= 1
            cash_flow += self.price
        ticks = self.wait_ticks if action == WAIT else 1
        costs = 0.0
        for _ in range(min(ticks, self.horizon - self.tick)):
            self._move_price()
            costs += self.holding_cost * self.stock
            self.tick += 1
        reward = cash_flow + self.stock * self.price - value_before - costs
        self.profit = float(np.clip(self.profit + reward, -self._profit_bound, self._profit_bound))
        terminated = self.tick >= self.horizon
        info = {"action": ACTION_NAMES[action], "stock": self.stock}
        return self._observation(), float(reward), terminated, False, info

    def _move_price(self) -> None:
        pull = 0.1 * (self.mean_price - self.price)
        shock = self.volatility * self.np_random.standard_normal()
        self.price = float(np.clip(self.price + pull + shock, self.min_price, self.max_price))

    def _observation(self) -> np.ndarray:
        time_fraction = self.tick / self.horizon
        return np.array([self.price, self.stock, time_fraction, self.profit], dtype=np.float32)

    def render(self) -> str | None:
        if self.render_mode != "ansi":
            return None
        return (
            f"t={self.tick:3d}/{self.horizon} price={self.price:6.2f} "
            f"stock={self.stock:2d} profit={self.profit:8.2f}\n"
        )


gym.register(
    id="InventoryTrading-v0",
    entry_point=InventoryEnv,
    max_episode_steps=200,
)
