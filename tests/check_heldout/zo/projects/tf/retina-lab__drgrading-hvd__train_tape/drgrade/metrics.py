import numpy as np
import tensorflow as tf
import horovod.tensorflow as hvd


def quadratic_kappa(conf):
    n = conf.shape[0]
    w = np.array([[(i - j) ** 2 for j in range(n)] for i in range(n)], np.float64) / (n - 1) ** 2
    hist_t, hist_p = conf.sum(1), conf.sum(0)
    expected = np.outer(hist_t, hist_p) / max(conf.sum(), 1)
    return 1.0 - (w * conf).sum() / max((w * expected).sum(), 1e-9)


def evaluate(model, ds, num_val, num_grades=5):
    """Accuracy and quadratic weighted kappa over the validation set (sharded over workers)."""
    conf = np.zeros((num_grades, num_grades), np.float64)
    correct = 0.0
    for x, y in ds:
        pred = tf.argmax(model(x, training=False), -1, output_type=tf.int32)
        correct += float(tf.reduce_sum(tf.cast(pred == tf.cast(y, tf.int32), tf.float32)))
        for t, p in zip(y.numpy(), pred.numpy()):
            conf[t, p] += 1
    correct = hvd.allreduce(tf.constant(correct, tf.float64), name="val_correct")
    conf = hvd.allreduce(tf.constant(conf), name="val_confusion").numpy()
    return {"acc": float(correct) / num_val, "qwk": quadratic_kappa(conf)}
