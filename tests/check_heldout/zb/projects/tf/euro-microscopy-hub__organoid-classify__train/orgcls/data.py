import numpy as np
import tensorflow as tf
import horovod.tensorflow.keras as hvd


def load_arrays(path):
    with np.load(path) as z:
        return z["images"].astype(np.float32) / 255.0, z["labels"].astype(np.int32)


def make_split(images, labels, cfg, val_every=10):
    idx = np.arange(len(labels))
    val = idx % val_every == 0
    bs = cfg.batch_per_worker
    train = (tf.data.Dataset.from_tensor_slices((images[~val], labels[~val]))
             .shard(hvd.size(), hvd.rank())
             .shuffle(4096, seed=cfg.seed + hvd.rank())
             .map(lambda x, y: (tf.image.random_flip_left_right(x), y))
             .batch(bs, drop_remainder=True).repeat().prefetch(tf.data.AUTOTUNE))
    valid = (tf.data.Dataset.from_tensor_slices((images[val], labels[val]))
             .shard(hvd.size(), hvd.rank())
             .batch(bs, drop_remainder=True).repeat().prefetch(tf.data.AUTOTUNE))
    steps = int((~val).sum()) // cfg.global_batch
    val_steps = max(1, int(val.sum()) // cfg.global_batch)
    return train, valid, steps, val_steps
