import numpy as np
import tensorflow as tf


def build_split(cfg, split, num_shards, index):
    """Returns (dataset, number of examples in the whole split)."""
    arrays = np.load(cfg.data_path)
    x = arrays[f"x_{split}"].astype("float32")
    y = arrays[f"y_{split}"].astype("int32")
    ds = tf.data.Dataset.from_tensor_slices((x, y)).shard(num_shards, index)
    if split == "train":
        ds = ds.shuffle(4096, seed=cfg.seed).repeat()
    ds = ds.batch(cfg.batch_size, drop_remainder=(split == "train"))
    return ds.prefetch(tf.data.AUTOTUNE), len(y)
