import glob
import os

import tensorflow as tf
import horovod.tensorflow.keras as hvd

IMG_H, IMG_W = 256, 128


def _files_and_ids(folder):
    files = sorted(glob.glob(os.path.join(folder, '*.jpg')))
    files = [f for f in files if not os.path.basename(f).startswith('-1')]
    raw = [int(os.path.basename(f).split('_')[0]) for f in files]
    ids = {p: i for i, p in enumerate(sorted(set(raw)))}
    return files, [ids[p] for p in raw], len(ids)


def _load(path, label, augment):
    img = tf.image.resize(tf.image.decode_jpeg(tf.io.read_file(path), 3), (IMG_H, IMG_W))
    if augment:
        img = tf.image.random_flip_left_right(img)
        img = tf.image.random_crop(tf.image.resize_with_crop_or_pad(img, IMG_H + 16, IMG_W + 8),
                                   (IMG_H, IMG_W, 3))
    return (img / 255.0 - 0.45) / 0.225, label


def make_split(root, batch_size, training=True, holdout_every=10):
    """Train / val split of bounding_box_train (every 10th image held out), one shard per worker."""
    files, ids, n_ids = _files_and_ids(os.path.join(root, 'bounding_box_train'))
    keep = [i for i in range(len(files)) if (i % holdout_every != 0) == training]
    files, ids = [files[i] for i in keep], [ids[i] for i in keep]
    ds = tf.data.Dataset.from_tensor_slices((files, ids))
    if training:
        ds = ds.shuffle(len(files))
    ds = ds.shard(hvd.size(), hvd.rank())
    ds = ds.map(lambda p, y: _load(p, y, training), num_parallel_calls=tf.data.AUTOTUNE)
    if training:
        ds = ds.repeat()
    ds = ds.batch(batch_size, drop_remainder=training).prefetch(tf.data.AUTOTUNE)
    return ds, len(files) // hvd.size() // batch_size, n_ids
