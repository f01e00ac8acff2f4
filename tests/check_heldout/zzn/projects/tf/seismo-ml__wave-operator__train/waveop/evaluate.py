import numpy as np
import tensorflow as tf


def rollout_errors(model, data, steps=40):
    """Autoregressive rollout over the validation models; relative L2 error per step."""
    u, c = data.u[data.val], data.c[data.val]
    prev, now = u[:, 0], u[:, 1]
    errs = []
    for k in range(2, min(steps + 2, u.shape[1])):
        x = data.features(prev, now, c)
        nxt = model(tf.constant(x), training=False).numpy()[..., 0] * data.u_scale
        errs.append(np.linalg.norm(nxt - u[:, k]) / np.linalg.norm(u[:, k]))
        prev, now = now, nxt
    return np.array(errs)
