import numpy as np
import tensorflow as tf
import horovod.tensorflow as hvd


def pseudo_label(model, x_unl, threshold, batch=64):
    """Score a strided slice of the unlabelled images per worker, all-gather, keep
    images whose every class probability is confidently 0 or 1."""
    idx = np.arange(hvd.rank(), len(x_unl), hvd.size())
    probs = [tf.sigmoid(model(tf.cast(x_unl[idx[s:s + batch]], tf.float32) / 255.0, training=False)).numpy()
             for s in range(0, len(idx), batch)]
    probs = np.concatenate(probs) if probs else np.zeros((0, model.output_shape[-1]), np.float32)
    all_idx = hvd.allgather(tf.constant(idx, dtype=tf.int64)).numpy()
    all_probs = hvd.allgather(tf.constant(probs)).numpy()
    p = all_probs[np.argsort(all_idx)]  # back to image order
    conf = np.all((p > threshold) | (p < 1 - threshold), axis=1)
    return x_unl[conf], (p[conf] > 0.5).astype(np.float32)
