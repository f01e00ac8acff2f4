import numpy as np


class ReachStub:
    """Tiny stand-in for the MuJoCo reacher used in the paper runs."""

    def __init__(self, obs_dim=11, act_dim=3, horizon=50, seed=0):
        self.obs_dim, self.act_dim, self.horizon = obs_dim, act_dim, horizon
        self.rng = np.random.default_rng(seed)

    def reset(self):
        self.t = 0
        self.goal = self.rng.uniform(-1, 1, self.act_dim)
        self.pos = np.zeros(self.act_dim)
        return self._obs()

    def _obs(self):
        pad = np.zeros(self.obs_dim - 2 * self.act_dim)
        return np.concatenate([self.pos, self.goal - self.pos, pad]).astype(np.float32)

    def step(self, action):
        self.t += 1
        self.pos = np.clip(self.pos + 0.1 * np.asarray(action), -1, 1)
        dist = np.linalg.norm(self.goal - self.pos)
        done = dist < 0.05 or self.t >= self.horizon
        return self._obs(), -dist, done, {"success": dist < 0.05}
