import numpy as np


class GridWorld:
    """size x size grid, start top-left, goal bottom-right, -0.01 per move, +1 at the goal."""

    n_actions = 4

    def __init__(self, size=8, max_steps=100, seed=None):
        self.size, self.max_steps = size, max_steps
        self.rng = np.random.default_rng(seed)
        self.obs_dim = size * size

    def _obs(self):
        o = np.zeros(self.obs_dim, dtype=np.float32)
        o[self.pos[0] * self.size + self.pos[1]] = 1.0
        return o

    def reset(self):
        self.pos, self.t = [0, 0], 0
        return self._obs()

    def step(self, a):
        if self.rng.random() < 0.1:  # slippery floor
            a = self.rng.integers(4)
        dr, dc = [(-1, 0), (1, 0), (0, -1), (0, 1)][a]
        self.pos = [min(max(self.pos[0] + dr, 0), self.size - 1), min(max(self.pos[1] + dc, 0), self.size - 1)]
        self.t += 1
        goal = self.pos == [self.size - 1, self.size - 1]
        return self._obs(), (1.0 if goal else -0.01), goal or self.t >= self.max_steps


def make_env(seed, size=8):
    return GridWorld(size=size, seed=seed)
