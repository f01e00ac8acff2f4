import time


class Throughput:
    """Examples/second over the last logging window (this worker only)."""

    def __init__(self, batch_size):
        self.batch_size = batch_size
        self.t = time.perf_counter()
        self.steps = 0

    def tick(self):
        self.steps += 1

    def rate(self):
        now = time.perf_counter()
        r = self.steps * self.batch_size / max(now - self.t, 1e-9)
        self.t, self.steps = now, 0
        return r

    def __repr__(self):
        return f"Throughput(batch_size={self.batch_size})"
