import numpy as np
import tensorflow as tf
import horovod.tensorflow as hvd


def load_features(path):
    """npz with input_ids [N, L], attention_mask [N, L], start_positions [N], end_positions [N], vocab_size."""
    with np.load(path) as z:
        return {k: z[k] for k in z.files}


def to_dataset(f, batch_size, training):
    ds = tf.data.Dataset.from_tensor_slices(
        (f["input_ids"], f["attention_mask"], f["start_positions"], f["end_positions"]))
    ds = ds.shard(hvd.size(), hvd.rank())
    if training:
        ds = ds.shuffle(4096, reshuffle_each_iteration=True).repeat()
    return ds.batch(batch_size, drop_remainder=training).prefetch(tf.data.AUTOTUNE)
