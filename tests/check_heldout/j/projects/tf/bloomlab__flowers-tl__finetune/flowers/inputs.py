import os

import tensorflow as tf

IMG_EXT = (".jpg", ".jpeg", ".png")


def list_images(root):
    classes = sorted(d for d in os.listdir(root) if os.path.isdir(os.path.join(root, d)))
    paths, labels = [], []
    for idx, cls in enumerate(classes):
        for name in sorted(os.listdir(os.path.join(root, cls))):
            if name.lower().endswith(IMG_EXT):
                paths.append(os.path.join(root, cls, name))
                labels.append(idx)
    return paths, labels, classes


def _decode(size):
    def fn(path, label):
        img = tf.io.decode_image(tf.io.read_file(path), channels=3, expand_animations=False)
        return tf.image.resize(img, (size, size)), label
    return fn


def _augment(img, label):
    img = tf.image.random_flip_left_right(img)
    img = tf.image.random_saturation(img, 0.8, 1.2)
    return img, label


def pipeline(root, size, batch_size, rank, world, training):
    paths, labels, classes = list_images(root)
    ds = tf.data.Dataset.from_tensor_slices((paths, labels)).shard(world, rank)
    if training:
        ds = ds.shuffle(len(paths) // world + 1).repeat()
    ds = ds.map(_decode(size), num_parallel_calls=tf.data.AUTOTUNE)
    if training:
        ds = ds.map(_augment, num_parallel_calls=tf.data.AUTOTUNE)
    else:
        ds = ds.repeat()
    return ds.batch(batch_size).prefetch(tf.data.AUTOTUNE), len(paths), classes
