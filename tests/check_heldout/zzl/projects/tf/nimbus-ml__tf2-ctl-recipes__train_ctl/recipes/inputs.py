import numpy as np
import tensorflow as tf


def _load(split):
    (x_tr, y_tr), (x_te, y_te) = tf.keras.datasets.fashion_mnist.load_data()
    if split == "train":
        x, y = x_tr, y_tr
    else:
        x, y = x_te, y_te
    x = (x[..., None] / 255.0).astype(np.float32)
    return x, y.astype(np.int64)


def make_input_fn(split, global_batch_size, shuffle_seed=1234):
    def input_fn(ctx: tf.distribute.InputContext):
        batch = ctx.get_per_replica_batch_size(global_batch_size)
        x, y = _load(split)
        ds = tf.data.Dataset.from_tensor_slices((x, y))
        ds = ds.shard(ctx.num_input_pipelines, ctx.input_pipeline_id)
        if split == "train":
            ds = ds.shuffle(10000, seed=shuffle_seed + ctx.input_pipeline_id,
                            reshuffle_each_iteration=True).repeat()
        # drop_remainder keeps every replica on the same number of steps
        return ds.batch(batch, drop_remainder=True).prefetch(tf.data.AUTOTUNE)
    return input_fn
