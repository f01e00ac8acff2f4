import numpy as np
import tensorflow as tf


def decode_video(video_id, clip_id, cfg):
    """Frame decoding stub: a deterministic tiny random clip per (video, clip)."""
    rng = np.random.default_rng(int(video_id) * 97 + int(clip_id))
    return rng.random((cfg.frames, cfg.size, cfg.size, 3), dtype=np.float32)


def _py_clip(video_id, cfg, train):
    clip_id = np.random.randint(0, 16) if train else 0
    return decode_video(video_id, clip_id, cfg), np.int32(video_id % cfg.num_classes)


def make_dataset(cfg, num_videos, offset, rank, world, train=True):
    ds = tf.data.Dataset.range(offset, offset + num_videos)
    ds = ds.shard(world, rank)
    if train:
        ds = ds.shuffle(1024, reshuffle_each_iteration=True)
    ds = ds.map(lambda v: tf.numpy_function(lambda x: _py_clip(x, cfg, train), [v], [tf.float32, tf.int32]),
                num_parallel_calls=tf.data.AUTOTUNE)
    ds = ds.map(lambda x, y: (tf.ensure_shape(x, (cfg.frames, cfg.size, cfg.size, 3)), tf.ensure_shape(y, ())))
    return ds.repeat().batch(cfg.batch_size, drop_remainder=True).prefetch(2)
