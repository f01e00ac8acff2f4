import numpy as np
import tensorflow as tf

AUTOTUNE = tf.data.AUTOTUNE


def load_arrays(path=None, n_train=4096, n_val=1024, image_size=32, classes=10):
    if path:
        blob = np.load(path)
        return (blob["x_train"], blob["y_train"]), (blob["x_val"], blob["y_val"])
    rng = np.random.default_rng(7)
    mk = lambda n: (rng.random((n, image_size, image_size, 3), dtype=np.float32),
                    rng.integers(0, classes, n).astype("int64"))
    return mk(n_train), mk(n_val)


def make_datasets(ctx, batch_size, path=None):
    (xt, yt), (xv, yv) = load_arrays(path)
    train = tf.data.Dataset.from_tensor_slices((xt, yt))
    val = tf.data.Dataset.from_tensor_slices((xv, yv))
    if ctx.kind == "horovod":
        train = train.shard(ctx.size, ctx.rank)
        val = val.shard(ctx.size, ctx.rank)
    train = train.shuffle(len(xt) // ctx.size, seed=ctx.rank).repeat().batch(batch_size).prefetch(AUTOTUNE)
    val = val.batch(batch_size).prefetch(AUTOTUNE)
    steps_per_epoch = len(xt) // (batch_size * ctx.size)
    return train, val, steps_per_epoch
