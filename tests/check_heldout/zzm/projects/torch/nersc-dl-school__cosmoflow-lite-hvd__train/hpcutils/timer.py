import time
from contextlib import contextmanager


class Throughput:
    """Samples per second for one rank, skipping the first (warm-up) iterations."""

    def __init__(self, skip=5):
        self.skip = skip
        self.n_iter = 0
        self.samples = 0
        self.t_start = None

    def step(self, batch_size):
        self.n_iter += 1
        if self.n_iter == self.skip:
            self.t_start = time.perf_counter()
        elif self.n_iter > self.skip:
            self.samples += batch_size

    @property
    def rate(self):
        if self.t_start is None or self.samples == 0:
            return float("nan")
        return self.samples / (time.perf_counter() - self.t_start)


@contextmanager
def timed(store, key):
    t0 = time.perf_counter()
    yield
    store[key] = store.get(key, 0.0) + time.perf_counter() - t0
