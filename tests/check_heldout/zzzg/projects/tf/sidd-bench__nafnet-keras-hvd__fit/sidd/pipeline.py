import glob

import tensorflow as tf


def _img(path):
    return tf.image.convert_image_dtype(tf.io.decode_png(tf.io.read_file(path), 3), tf.float32)


def _paired(noisy_glob, clean_glob):
    return tf.data.Dataset.from_tensor_slices((sorted(glob.glob(noisy_glob)), sorted(glob.glob(clean_glob))))


def train_pipeline(cfg, rank, size):
    def crop(n, c):
        both = tf.image.random_crop(tf.concat([_img(n), _img(c)], axis=-1), [cfg["patch"], cfg["patch"], 6])
        k = tf.random.uniform([], 0, 4, tf.int32)
        both = tf.image.rot90(both, k)
        return both[..., :3], both[..., 3:]

    ds = _paired(cfg["train_noisy"], cfg["train_clean"]).shard(size, rank)
    ds = ds.shuffle(1024).repeat().map(crop, tf.data.AUTOTUNE)
    return ds.batch(cfg["batch_size"], drop_remainder=True).prefetch(tf.data.AUTOTUNE)


def val_pipeline(cfg, rank, size):
    # 1280 full 256x256 validation crops: split them so validation is not repeated on every worker
    ds = _paired(cfg["val_noisy"], cfg["val_clean"]).shard(size, rank)
    return ds.map(lambda n, c: (_img(n), _img(c))).batch(4)
