import numpy as np


class CartPoleLite:
    """Numpy cart-pole (same dynamics as the classic control task), fixed 200-step episodes."""

    def __init__(self, seed=None):
        self.rng = np.random.default_rng(seed)
        self.g, self.mc, self.mp, self.l, self.dt = 9.8, 1.0, 0.1, 0.5, 0.02

    def reset(self):
        self.s = self.rng.uniform(-0.05, 0.05, 4)
        return self.s.astype(np.float32)

    def step(self, action):
        x, xd, th, thd = self.s
        f = 10.0 if action == 1 else -10.0
        ct, st = np.cos(th), np.sin(th)
        tmp = (f + self.mp * self.l * thd ** 2 * st) / (self.mc + self.mp)
        tha = (self.g * st - ct * tmp) / (self.l * (4.0 / 3.0 - self.mp * ct ** 2 / (self.mc + self.mp)))
        xa = tmp - self.mp * self.l * tha * ct / (self.mc + self.mp)
        self.s = np.array([x + self.dt * xd, xd + self.dt * xa, th + self.dt * thd, thd + self.dt * tha])
        fallen = abs(self.s[2]) > 0.21 or abs(self.s[0]) > 2.4
        return self.s.astype(np.float32), (0.0 if fallen else 1.0), fallen
