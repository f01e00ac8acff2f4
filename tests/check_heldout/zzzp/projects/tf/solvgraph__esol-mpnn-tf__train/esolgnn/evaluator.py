import numpy as np


class Evaluator(object):
    """MAE / RMSE over a loader of collated batches"""

    def __init__(self, model, y_mean=0.0, y_std=1.0):
        self.model = model
        self.y_mean, self.y_std = y_mean, y_std

    def run(self, batches):
        err, sq, n = 0.0, 0.0, 0
        for b, y in batches:
            p = self.model(b).numpy() * self.y_std + self.y_mean
            t = y.numpy() * self.y_std + self.y_mean
            err += np.abs(p - t).sum()
            sq += ((p - t) ** 2).sum()
            n += len(t)
        n = max(n, 1)
        return {"mae": err / n, "rmse": float(np.sqrt(sq / n))}
