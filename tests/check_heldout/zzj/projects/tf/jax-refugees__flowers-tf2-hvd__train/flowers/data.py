import pathlib

import numpy as np
import tensorflow as tf


def split_files(cfg):
    root = pathlib.Path(cfg.data_dir)
    classes = sorted(p.name for p in root.iterdir() if p.is_dir())
    files = sorted(str(p) for p in root.glob('*/*.jpg'))
    labels = [classes.index(pathlib.Path(f).parent.name) for f in files]
    order = np.random.RandomState(cfg.seed).permutation(len(files))  # same split on every rank
    files, labels = np.array(files)[order], np.array(labels)[order]
    n_val = int(len(files) * cfg.val_fraction)
    return (files[n_val:], labels[n_val:]), (files[:n_val], labels[:n_val]), classes


def make_ds(cfg, files, labels, rank, size, training):
    ds = tf.data.Dataset.from_tensor_slices((files, labels))
    if training:
        ds = ds.shard(size, rank).shuffle(2048, seed=cfg.seed + rank).repeat()

    def _load(path, label):
        img = tf.image.decode_jpeg(tf.io.read_file(path), channels=3)
        img = tf.image.resize(img, (cfg.image_size, cfg.image_size)) / 255.0
        if training:
            img = tf.image.random_flip_left_right(img)
        return img, label

    return ds.map(_load, num_parallel_calls=tf.data.AUTOTUNE).batch(cfg.batch_size).prefetch(tf.data.AUTOTUNE)
