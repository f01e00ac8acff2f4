import numpy as np


class Pendulum:
    """Torque-limited pendulum swing-up (obs cos, sin, thetadot; action in [-2, 2])."""

    max_torque, dt, horizon = 2.0, 0.05, 200

    def __init__(self, seed=None):
        self.rng = np.random.default_rng(seed)

    def reset(self):
        self.th, self.thd, self.t = self.rng.uniform(-np.pi, np.pi), self.rng.uniform(-1, 1), 0
        return self._obs()

    def _obs(self):
        return np.array([np.cos(self.th), np.sin(self.th), self.thd], np.float32)

    def step(self, u):
        u = float(np.clip(u, -self.max_torque, self.max_torque))
        ang = ((self.th + np.pi) % (2 * np.pi)) - np.pi
        cost = ang ** 2 + 0.1 * self.thd ** 2 + 0.001 * u ** 2
        self.thd = np.clip(self.thd + (3 * 10.0 / 2 * np.sin(self.th) + 3.0 * u) * self.dt, -8, 8)
        self.th += self.thd * self.dt
        self.t += 1
        return self._obs(), -cost, self.t >= self.horizon
