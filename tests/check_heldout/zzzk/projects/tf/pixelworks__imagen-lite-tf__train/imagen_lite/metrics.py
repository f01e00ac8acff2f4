import numpy as np
import tensorflow as tf
import horovod.tensorflow as hvd


class DistributedMean:
    """running mean over all workers"""

    def __init__(self, name):
        self.name = name
        self.reset()

    def reset(self):
        self.total = 0.0
        self.count = 0

    def update(self, value, n=1):
        self.total += float(value) * n
        self.count += n

    def result(self):
        total = hvd.allreduce(tf.constant(self.total, tf.float64), op=hvd.Sum, name=self.name)
        return float(total) / max(self.count, 1)


class GatheredFeatureStats:
    """mean / covariance of features gathered from every worker (for an FID-like number)"""

    def __init__(self):
        self.chunks = []

    def update(self, feats):
        self.chunks.append(tf.cast(feats, tf.float64))

    def result(self):
        local = tf.concat(self.chunks, 0)
        allf = hvd.allgather(local, name="eval_feats").numpy()
        return allf.mean(0), np.cov(allf, rowvar=False)


def frechet(mu1, s1, mu2, s2):
    from scipy import linalg
    covmean = linalg.sqrtm(s1 @ s2).real
    return float(((mu1 - mu2) ** 2).sum() + np.trace(s1 + s2 - 2 * covmean))
