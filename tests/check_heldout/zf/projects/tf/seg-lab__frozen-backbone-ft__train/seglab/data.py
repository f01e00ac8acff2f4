import tensorflow as tf

AUTOTUNE = tf.data.AUTOTUNE


def _load(img_path, mask_path, size):
    img = tf.image.decode_jpeg(tf.io.read_file(img_path), channels=3)
    mask = tf.image.decode_png(tf.io.read_file(mask_path), channels=1)
    img = tf.image.resize(img, (size, size)) / 127.5 - 1.0
    mask = tf.image.resize(mask, (size, size), method="nearest")
    return img, tf.cast(mask, tf.int32)


def pairs(list_file):
    with open(list_file) as f:
        rows = [line.split() for line in f if line.strip()]
    return [r[0] for r in rows], [r[1] for r in rows]


def dataset(list_file, size, batch, rank, world, training):
    imgs, masks = pairs(list_file)
    ds = tf.data.Dataset.from_tensor_slices((imgs, masks)).shard(world, rank)
    if training:
        ds = ds.shuffle(2048, seed=rank).repeat()
    ds = ds.map(lambda a, b: _load(a, b, size), num_parallel_calls=AUTOTUNE)
    return ds.batch(batch, drop_remainder=training).prefetch(AUTOTUNE), len(imgs) // world
