import numpy as np
import tensorflow as tf
import horovod.tensorflow as hvd


def auc_logloss(model, ds):
    ps, ys = [], []
    for dense, cat, y in ds:
        ps.append(tf.sigmoid(model(dense, cat))[:, 0])
        ys.append(y[:, 0])
    p = tf.concat(ps, 0) if ps else tf.zeros([0])
    y = tf.concat(ys, 0) if ys else tf.zeros([0])
    p = hvd.allgather(p).numpy().astype(np.float64)
    y = hvd.allgather(y).numpy().astype(np.float64)
    o = np.argsort(p)
    ys_ = y[o]
    npos, nneg = ys_.sum(), len(ys_) - ys_.sum()
    auc = (np.flatnonzero(ys_ == 1).sum() + npos - npos * (npos + 1) / 2) / max(npos * nneg, 1)
    ll = -np.mean(y * np.log(np.clip(p, 1e-7, 1)) + (1 - y) * np.log(np.clip(1 - p, 1e-7, 1)))
    return float(auc), float(ll)
