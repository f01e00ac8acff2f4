import tensorflow as tf
import horovod.tensorflow.keras as hvd


def input_fn(x, y, batch_size, training, shuffle_buffer=10000):
    ds = tf.data.Dataset.from_tensor_slices((x, y))
    if training:
        ds = ds.shuffle(shuffle_buffer)
    ds = ds.shard(hvd.size(), hvd.rank())
    if training:
        ds = ds.repeat()
    return ds.batch(batch_size, drop_remainder=training).prefetch(tf.data.AUTOTUNE)
