class EarlyStopping:
    def __init__(self, patience=5, min_delta=1e-4):
        self.patience = patience
        self.min_delta = min_delta
        self.best = float("inf")
        self.wait = 0

    def step(self, value):
        """Returns (improved, should_stop)."""
        if value < self.best - self.min_delta:
            self.best, self.wait = value, 0
            return True, False
        self.wait += 1
        return False, self.wait >= self.patience
