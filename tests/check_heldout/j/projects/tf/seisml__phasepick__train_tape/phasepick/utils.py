import tensorflow as tf


def configure_gpus(local_rank):
    gpus = tf.config.list_physical_devices("GPU")
    for g in gpus:
        tf.config.experimental.set_memory_growth(g, True)
    if gpus:
        tf.config.set_visible_devices(gpus[local_rank], "GPU")


def make_manager(model, optimizer, directory, keep=5):
    ckpt = tf.train.Checkpoint(model=model, optimizer=optimizer, epoch=tf.Variable(0, dtype=tf.int64))
    return ckpt, tf.train.CheckpointManager(ckpt, directory, max_to_keep=keep)


def pick_f1(y_true, y_pred, phase, threshold=0.5, tol=10):
    """Fraction of windows whose picked sample lies within ``tol`` samples of the label."""
    t = tf.argmax(y_true[..., phase], axis=1)
    p = tf.argmax(y_pred[..., phase], axis=1)
    detected = tf.reduce_max(y_pred[..., phase], axis=1) > threshold
    hit = tf.logical_and(detected, tf.abs(t - p) <= tol)
    return tf.reduce_mean(tf.cast(hit, tf.float32))
