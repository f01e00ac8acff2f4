import time


class Meter:
    def __init__(self):
        self.t0 = time.time()

    def line(self, epoch, **vals):
        body = " ".join(f"{k}={v:.4f}" for k, v in vals.items())
        return f"epoch {epoch:03d} [{time.time() - self.t0:7.1f}s] {body}"
