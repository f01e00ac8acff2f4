import numpy as np
import tensorflow as tf
import horovod.tensorflow.keras as hvd


def make_datasets(path, batch_size, image_size):
    """npz with uint8 `train` / `val` arrays (N, H, W, 3). Both splits are sharded by rank."""
    with np.load(path) as f:
        train, val = f["train"], f["val"]

    def prep(x):
        x = tf.image.resize(tf.cast(x, tf.float32) / 255.0, (image_size, image_size))
        return tf.clip_by_value(x, 0.0, 1.0)

    train_ds = (tf.data.Dataset.from_tensor_slices(train).shard(hvd.size(), hvd.rank())
                .map(prep, num_parallel_calls=tf.data.AUTOTUNE).cache().repeat()
                .shuffle(2048).batch(batch_size, drop_remainder=True).prefetch(tf.data.AUTOTUNE))
    val_ds = (tf.data.Dataset.from_tensor_slices(val).shard(hvd.size(), hvd.rank())
              .map(prep).batch(batch_size).cache())
    steps = len(train) // (batch_size * hvd.size())
    return train_ds, val_ds, steps
