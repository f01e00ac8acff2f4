import numpy as np
import tensorflow as tf
import horovod.tensorflow.keras as hvd

AUTOTUNE = tf.data.AUTOTUNE


def _synthetic(n, size, seed):
    rng = np.random.RandomState(seed)
    x = rng.rand(n, size, size, 3).astype("float32")
    y = rng.randint(0, 5, n).astype("int64")
    return tf.data.Dataset.from_tensor_slices((x, y))


def _folder(path, size, subset):
    return tf.keras.utils.image_dataset_from_directory(
        path, validation_split=0.2, subset=subset, seed=123,
        image_size=(size, size), batch_size=None)


def train_val(cfg):
    if cfg.synthetic:
        train, val = _synthetic(128, cfg.img_size, 0), _synthetic(32, cfg.img_size, 1)
    else:
        train = _folder(cfg.data_dir, cfg.img_size, "training")
        val = _folder(cfg.data_dir, cfg.img_size, "validation")
    train = (train.shard(hvd.size(), hvd.rank())
                  .shuffle(1000, seed=hvd.rank())
                  .batch(cfg.batch_size, drop_remainder=True)
                  .prefetch(AUTOTUNE))
    # every worker validates on the whole validation split
    val = val.batch(cfg.batch_size).prefetch(AUTOTUNE)
    return train, val
