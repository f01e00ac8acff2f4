import tensorflow as tf


def read_list(path):
    """Each line: `<page image> <text-block mask>`."""
    imgs, masks = [], []
    with open(path) as fh:
        for line in fh:
            parts = line.split()
            if len(parts) == 2:
                imgs.append(parts[0])
                masks.append(parts[1])
    return imgs, masks


def _decode(img_path, mask_path, size):
    img = tf.image.decode_image(tf.io.read_file(img_path), channels=3, expand_animations=False)
    mask = tf.image.decode_png(tf.io.read_file(mask_path), channels=1)
    img = tf.image.resize(tf.cast(img, tf.float32) / 255.0, (size, size))
    mask = tf.image.resize(tf.cast(mask > 127, tf.float32), (size, size), method="nearest")
    return img, mask


def page_dataset(list_file, size, batch, shard_count, shard_index, training):
    imgs, masks = read_list(list_file)
    ds = tf.data.Dataset.from_tensor_slices((imgs, masks)).shard(shard_count, shard_index)
    if training:
        ds = ds.shuffle(1000).repeat()
    ds = ds.map(lambda a, b: _decode(a, b, size), num_parallel_calls=tf.data.AUTOTUNE)
    return ds.batch(batch, drop_remainder=training).prefetch(2), len(imgs)
