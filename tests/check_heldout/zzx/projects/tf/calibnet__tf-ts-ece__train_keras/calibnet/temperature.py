import numpy as np
import tensorflow as tf


def fit_temperature(logits, labels, steps=300, lr=0.1):
    """Single scalar T minimising the validation NLL (Guo et al. 2017)."""
    log_t = tf.Variable(0.0)
    logits = tf.constant(logits, tf.float32)
    labels = tf.constant(labels, tf.int64)
    for _ in range(steps):
        with tf.GradientTape() as tape:
            nll = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(labels, logits / tf.exp(log_t)))
        g = tape.gradient(nll, log_t)
        log_t.assign_sub(lr * g)
    return float(tf.exp(log_t))


def ece(probs, labels, n_bins=15):
    conf, pred = probs.max(-1), probs.argmax(-1)
    hit = (pred == labels)
    bins = np.minimum((conf * n_bins).astype(int), n_bins - 1)
    return float(sum(abs(hit[bins == b].mean() - conf[bins == b].mean()) * (bins == b).mean()
                     for b in range(n_bins) if (bins == b).any()))


def softmax(z):
    z = z - z.max(-1, keepdims=True)
    e = np.exp(z)
    return e / e.sum(-1, keepdims=True)
