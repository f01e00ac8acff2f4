import numpy as np


class LineFollowEnv:
    """2-D line following: state = (offset, heading, curvature, speed), action = steering."""

    def __init__(self, seed, horizon=150):
        self.rng, self.horizon = np.random.default_rng(seed), horizon

    def reset(self):
        self.t = 0
        self.s = np.array([self.rng.uniform(-1, 1), self.rng.uniform(-0.5, 0.5),
                           self.rng.uniform(-0.2, 0.2), 1.0], dtype="float32")
        return self.s.copy()

    def step(self, steer):
        off, head, curv, v = self.s
        head = head + 0.1 * (float(np.clip(steer, -1, 1)) - curv)
        off = off + 0.1 * v * np.sin(head)
        curv = curv + self.rng.normal(0, 0.01)
        self.s = np.array([off, head, curv, v], dtype="float32")
        self.t += 1
        lost = abs(off) > 2.0
        return self.s.copy(), lost or self.t >= self.horizon, {"success": not lost and self.t >= self.horizon}


def scripted_expert(state):
    off, head, curv, _ = state
    return np.float32(np.clip(curv - 1.5 * off - 2.0 * head, -1, 1))
