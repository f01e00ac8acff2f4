import numpy as np


class Pendulum:
    """Torque-limited inverted pendulum (swing-up), 200 steps per episode."""

    obs_dim, act_dim, max_torque, dt, horizon = 3, 1, 2.0, 0.05, 200

    def __init__(self, seed=0):
        self.rng = np.random.default_rng(seed)

    def _obs(self):
        th, thdot = self.state
        return np.array([np.cos(th), np.sin(th), thdot], dtype=np.float32)

    def reset(self):
        self.state = self.rng.uniform([-np.pi, -1.0], [np.pi, 1.0])
        self.t = 0
        return self._obs()

    def step(self, u):
        th, thdot = self.state
        u = float(np.clip(u, -self.max_torque, self.max_torque)[0])
        norm = ((th + np.pi) % (2 * np.pi)) - np.pi
        cost = norm ** 2 + 0.1 * thdot ** 2 + 0.001 * u ** 2
        thdot = np.clip(thdot + (3 * 10.0 / 2 * np.sin(th) + 3.0 * u) * self.dt, -8, 8)
        self.state = np.array([th + thdot * self.dt, thdot])
        self.t += 1
        return self._obs(), -cost, self.t >= self.horizon


def make_env(seed):
    return Pendulum(seed=seed)
