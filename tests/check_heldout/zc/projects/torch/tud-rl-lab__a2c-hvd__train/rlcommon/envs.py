import numpy as np


class PointMassVec:
    """N independent 1-D point masses; push left / nothing / right, reward -|x|."""

    obs_dim = 2
    n_actions = 3

    def __init__(self, n, seed, horizon=100):
        self.n = n
        self.horizon = horizon
        self.rng = np.random.default_rng(seed)
        self.t = np.zeros(n, dtype=np.int64)
        self.state = np.zeros((n, 2), dtype=np.float32)
        self.ep_ret = np.zeros(n, dtype=np.float32)
        self.finished = []

    def _reset_idx(self, idx):
        self.state[idx, 0] = self.rng.uniform(-1.0, 1.0, size=len(idx))
        self.state[idx, 1] = 0.0
        self.t[idx] = 0
        self.ep_ret[idx] = 0.0

    def reset(self):
        self._reset_idx(np.arange(self.n))
        return self.state.copy()

    def step(self, actions):
        force = (np.asarray(actions) - 1).astype(np.float32) * 0.05
        self.state[:, 1] = 0.9 * self.state[:, 1] + force
        self.state[:, 0] = np.clip(self.state[:, 0] + self.state[:, 1], -2.0, 2.0)
        reward = -np.abs(self.state[:, 0])
        self.ep_ret += reward
        self.t += 1
        done = self.t >= self.horizon
        if done.any():
            idx = np.nonzero(done)[0]
            self.finished.extend(self.ep_ret[idx].tolist())
            self._reset_idx(idx)
        return self.state.copy(), reward.astype(np.float32), done.astype(np.float32)


def make_vec_env(n_envs, seed):
    return PointMassVec(n_envs, seed)
