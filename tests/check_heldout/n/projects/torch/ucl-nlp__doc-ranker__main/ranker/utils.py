import time


class EarlyStopping:
    def __init__(self, patience=3, mode="max"):
        self.patience, self.mode = patience, mode
        self.best, self.bad = None, 0

    def step(self, value):
        improved = self.best is None or (value > self.best if self.mode == "max" else value < self.best)
        if improved:
            self.best, self.bad = value, 0
        else:
            self.bad += 1
        return improved, self.bad >= self.patience


class Timer:
    def __enter__(self):
        self.t0 = time.perf_counter()
        return self

    def __exit__(self, *exc):
        self.elapsed = time.perf_counter() - self.t0
