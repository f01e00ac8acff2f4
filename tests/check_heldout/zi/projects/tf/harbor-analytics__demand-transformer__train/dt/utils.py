import logging


def get_logger(rank):
    logging.basicConfig(format=f"%(asctime)s r{rank} %(levelname)s %(message)s", level=logging.INFO)
    log = logging.getLogger("dt")
    if rank != 0:
        log.setLevel(logging.WARNING)
    return log


class EarlyStopping:
    def __init__(self, patience=5, min_delta=0.0):
        self.patience, self.min_delta = patience, min_delta
        self.best, self.bad = float("inf"), 0

    def step(self, value):
        if value < self.best - self.min_delta:
            self.best, self.bad = value, 0
        else:
            self.bad += 1
        return self.bad >= self.patience
