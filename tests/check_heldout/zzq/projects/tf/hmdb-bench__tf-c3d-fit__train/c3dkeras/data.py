import numpy as np
import tensorflow as tf

from . import config as C
from .augment import train_augment


def _decode(video_ids):
    out = np.empty((len(video_ids), C.CLIP_LEN, C.CROP, C.CROP, 3), np.float32)
    for k, v in enumerate(video_ids):
        out[k] = np.random.RandomState(int(v)).rand(C.CLIP_LEN, C.CROP, C.CROP, 3)
    return out


def hmdb_split(train, rank, world):
    """Each worker decodes only its own slice of the video list."""
    n = C.TRAIN_VIDEOS if train else C.VAL_VIDEOS
    ids = np.arange(n) + (0 if train else 1_000_000)
    mine = np.array_split(ids, world)[rank]
    x, y = _decode(mine), (mine % C.NUM_CLASSES).astype(np.int32)
    ds = tf.data.Dataset.from_tensor_slices((x, y))
    if train:
        ds = train_augment(ds.shuffle(len(mine)).repeat())
    return ds.batch(C.BATCH_PER_GPU), len(mine)
