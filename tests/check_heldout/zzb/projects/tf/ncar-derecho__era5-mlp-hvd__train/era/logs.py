import os
import socket
import time


class RankLogger:
    """Rank 0 prints; every rank appends its epoch timings to logs/rank_<r>.csv."""

    def __init__(self, log_dir, rank):
        self.rank = rank
        os.makedirs(log_dir, exist_ok=True)
        self.fh = open(os.path.join(log_dir, f"rank_{rank}.csv"), "a")
        self.host = socket.gethostname()

    def root(self, msg):
        if self.rank == 0:
            print(msg, flush=True)

    def tic(self):
        self._t = time.perf_counter()

    def toc(self, epoch, samples):
        dt = time.perf_counter() - self._t
        self.fh.write(f"{self.host},{epoch},{dt:.3f},{samples / dt:.1f}\n")
        self.fh.flush()
        return dt

    def close(self):
        self.fh.close()
