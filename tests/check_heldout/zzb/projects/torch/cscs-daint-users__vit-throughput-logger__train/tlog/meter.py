import json
import os
import socket
import time


class ThroughputLog:
    """Writes logs/rank_<r>.jsonl with one line per optimizer step."""

    def __init__(self, logdir, rank):
        os.makedirs(logdir, exist_ok=True)
        self.fh = open(os.path.join(logdir, f"rank_{rank}.jsonl"), "a")
        self.host = socket.gethostname()
        self._t0 = None
        self._samples = 0
        self._seconds = 0.0

    def start(self):
        self._t0 = time.perf_counter()

    def stop(self, epoch, step, samples):
        dt = time.perf_counter() - self._t0
        self._samples += samples
        self._seconds += dt
        self.fh.write(json.dumps({"host": self.host, "epoch": epoch, "step": step,
                                  "dt": dt, "img_s": samples / dt}) + "\n")

    def epoch_rate(self):
        rate = self._samples / self._seconds if self._seconds else 0.0
        self._samples, self._seconds = 0, 0.0
        return rate

    def close(self):
        self.fh.close()
