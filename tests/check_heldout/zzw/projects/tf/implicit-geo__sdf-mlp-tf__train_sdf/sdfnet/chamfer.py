import numpy as np
import tensorflow as tf


def project_to_surface(model, x, iters=3):
    x = tf.convert_to_tensor(x)
    for _ in range(iters):
        with tf.GradientTape() as tape:
            tape.watch(x)
            f = model(x)
        g = tape.gradient(f, x)
        x = x - f[:, None] * g / (tf.norm(g, axis=-1, keepdims=True) + 1e-8)
    return x.numpy()


def one_sided_sums(src, ref, chunk=1024):
    """Sum over src of the distance to the nearest ref point, and the count."""
    total = 0.0
    for k in range(0, len(src), chunk):
        d = np.linalg.norm(src[k:k + chunk, None] - ref[None], axis=-1)
        total += d.min(1).sum()
    return total, float(len(src))
