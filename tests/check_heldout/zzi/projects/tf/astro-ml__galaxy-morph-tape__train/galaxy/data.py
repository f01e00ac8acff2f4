import numpy as np
import tensorflow as tf


def load_cutouts(path):
    """HDF5 export is too slow on the cluster FS; we keep the cutouts as one .npz."""
    z = np.load(path)
    return z["images"].astype("float32"), z["morph"].astype("int64")


def holdout(images, labels, n_val, seed=0):
    idx = np.random.RandomState(seed).permutation(len(images))
    return (images[idx[n_val:]], labels[idx[n_val:]]), (images[idx[:n_val]], labels[idx[:n_val]])


def augment(img, lab):
    img = tf.image.rot90(img, k=tf.random.uniform((), 0, 4, dtype=tf.int32))
    img = tf.image.random_flip_up_down(img)
    return img, lab


def train_stream(images, labels, batch, world, rank, seed):
    ds = tf.data.Dataset.from_tensor_slices((images, labels))
    ds = ds.shuffle(len(images), seed=seed, reshuffle_each_iteration=False).shard(world, rank)
    ds = ds.shuffle(8192).repeat().map(augment, num_parallel_calls=tf.data.AUTOTUNE)
    return ds.batch(batch, drop_remainder=True).prefetch(tf.data.AUTOTUNE)


def eval_stream(images, labels, batch):
    return tf.data.Dataset.from_tensor_slices((images, labels)).batch(batch)
