import math
import numpy as np
import tensorflow as tf


def test_loglik(model, x_te, k_test, chunk=1000, bs=100):
    """log p(x) ~ IWAE bound with k_test samples, computed in chunks of samples"""
    out = []
    for i in range(0, len(x_te), bs):
        xb = tf.constant(np.random.binomial(1, x_te[i:i + bs]).astype(np.float32))
        lws = tf.concat([model.log_w(xb, chunk) for _ in range(k_test // chunk)], 0)
        out.append((tf.reduce_logsumexp(lws, 0) - math.log(float(lws.shape[0]))).numpy())
    return float(np.mean(np.concatenate(out)))
