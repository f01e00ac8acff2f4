import tensorflow as tf
import horovod.tensorflow as hvd


def _load(name):
    if name == "fashion":
        return tf.keras.datasets.fashion_mnist.load_data()
    return tf.keras.datasets.mnist.load_data(path=f"mnist-{hvd.rank()}.npz")


def make_dataset(name, batch_size, buffer_size=60000):
    """Images scaled to [-1, 1], sharded by rank; returns (dataset, steps_per_epoch)."""
    (x_train, _), _ = _load(name)
    x = (x_train.reshape(-1, 28, 28, 1).astype("float32") - 127.5) / 127.5
    ds = tf.data.Dataset.from_tensor_slices(x).shard(hvd.size(), hvd.rank())
    ds = ds.shuffle(buffer_size // hvd.size()).repeat().batch(batch_size, drop_remainder=True)
    steps = len(x) // (batch_size * hvd.size())
    return ds.prefetch(tf.data.AUTOTUNE), steps
