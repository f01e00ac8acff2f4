import os

import numpy as np
import tensorflow as tf
import horovod.tensorflow.keras as hvd


def load_split(cfg, split, shard=False):
    """Images/masks come pre-resized in one .npz per split; returns (dataset, size of split)."""
    arrs = np.load(os.path.join(cfg.data_dir, f"{split}.npz"))
    images = arrs["images"].astype("float32") / 255.0
    masks = (arrs["masks"] > 0).astype("float32")[..., None]
    ds = tf.data.Dataset.from_tensor_slices((images, masks))
    if shard:
        ds = ds.shard(hvd.size(), hvd.rank())
    if split == "train":
        ds = ds.shuffle(1024, seed=cfg.seed).repeat()
    ds = ds.batch(cfg.batch_size, drop_remainder=split == "train")
    return ds.prefetch(tf.data.AUTOTUNE), len(images)
