class AverageMeter:
    """Running (weighted) average."""

    def __init__(self):
        self.sum, self.count = 0.0, 0

    def update(self, val, n=1):
        self.sum += float(val) * n
        self.count += n

    @property
    def avg(self):
        return self.sum / max(self.count, 1)


class Normalizer:
    def __init__(self, mean, std):
        self.mean, self.std = float(mean), float(std)

    def norm(self, t):
        return (t - self.mean) / self.std

    def denorm(self, t):
        return t * self.std + self.mean

    def state_dict(self):
        return {"mean": self.mean, "std": self.std}
