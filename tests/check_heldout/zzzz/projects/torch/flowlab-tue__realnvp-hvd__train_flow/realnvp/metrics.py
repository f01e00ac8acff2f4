import math


def bits_per_dim(nll, n_dims):
    # nll in nats for data in [0,1]; add the 8-bit discretisation term
    return (nll / n_dims + math.log(256.0)) / math.log(2.0)


class BPDMeter:
    def __init__(self, n_dims):
        self.n_dims = n_dims
        self.reset()

    def reset(self):
        self.sum = 0.0
        self.count = 0

    def update(self, nll_batch):
        self.sum += nll_batch.sum().item()
        self.count += nll_batch.numel()

    @property
    def avg_nll(self):
        return self.sum / max(1, self.count)

    @property
    def bpd(self):
        return bits_per_dim(self.avg_nll, self.n_dims)
