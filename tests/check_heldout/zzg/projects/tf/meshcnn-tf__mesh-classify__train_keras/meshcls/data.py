import glob
import os

import numpy as np
import tensorflow as tf


def _read_mesh(path, max_faces):
    z = np.load(path)
    feats, adj = z["face_feats"].astype(np.float32), z["face_adj"].astype(np.int32)
    f = min(len(feats), max_faces)
    pad_feats = np.zeros((max_faces, feats.shape[1]), np.float32)
    pad_adj = np.zeros((max_faces, 3), np.int32)
    pad_feats[:f], pad_adj[:f] = feats[:f], np.clip(adj[:f], 0, f - 1)
    mask = np.zeros((max_faces,), np.float32)
    mask[:f] = 1.0
    return pad_feats, pad_adj, mask


def load_split(cfg, split):
    files = sorted(glob.glob(os.path.join(cfg["dataset_dir"], split, "*", "*.npz")))
    classes = sorted({os.path.basename(os.path.dirname(f)) for f in files})
    meshes = [_read_mesh(f, cfg["max_faces"]) for f in files]
    labels = np.array([classes.index(os.path.basename(os.path.dirname(f))) for f in files], np.int32)
    feats, adj, mask = (np.stack(a) for a in zip(*meshes))
    return {"feats": feats, "adj": adj, "mask": mask}, labels


def to_dataset(inputs, labels, batch_size, num_shards, index, train):
    ds = tf.data.Dataset.from_tensor_slices((inputs, labels)).shard(num_shards, index)
    if train:
        ds = ds.shuffle(1024, reshuffle_each_iteration=True)
    return ds.repeat().batch(batch_size, drop_remainder=True).prefetch(tf.data.AUTOTUNE)
