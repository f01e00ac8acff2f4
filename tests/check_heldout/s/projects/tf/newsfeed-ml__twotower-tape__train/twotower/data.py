"""Click logs: TSV rows "user_id<TAB>item_id" (positives only); in-batch negatives."""
import glob

import numpy as np
import tensorflow as tf


def worker_files(pattern, rank, world):
    files = sorted(glob.glob(pattern))
    return files[rank::world]


def click_dataset(files, batch_size, seed):
    pairs = np.concatenate([np.loadtxt(f, dtype=np.int64, delimiter="\t", ndmin=2) for f in files])
    ds = tf.data.Dataset.from_tensor_slices((pairs[:, 0], pairs[:, 1]))
    return ds.shuffle(len(pairs), seed=seed).repeat().batch(batch_size, drop_remainder=True)


def eval_pairs(path):
    pairs = np.loadtxt(path, dtype=np.int64, delimiter="\t", ndmin=2)
    return pairs[:, 0], pairs[:, 1]
