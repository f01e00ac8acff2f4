import numpy as np
import tensorflow as tf
import horovod.tensorflow.keras as hvd


def reconstruction_errors(model, x, batch_size=512):
    recon = model.predict(x, batch_size=batch_size, verbose=0)
    return np.mean((recon - x) ** 2, axis=(1, 2))


def fit_threshold(local_errors, quantile):
    """Quantile over the errors of every worker's training shard."""
    all_errors = hvd.allgather(tf.constant(local_errors, tf.float32), name="train_errors").numpy()
    return float(np.quantile(all_errors, quantile))


def prf1(errors, labels, threshold):
    pred = errors > threshold
    tp = np.sum(pred & (labels == 1))
    fp = np.sum(pred & (labels == 0))
    fn = np.sum(~pred & (labels == 1))
    p = tp / max(tp + fp, 1)
    r = tp / max(tp + fn, 1)
    return p, r, 2 * p * r / max(p + r, 1e-12)
