import numpy as np
import tensorflow as tf


def rgb_and_flow(video_id, frames, size, flow_len):
    rs = np.random.RandomState(video_id)
    rgb = rs.rand(frames, size, size, 3).astype(np.float32)
    flow = (rs.rand(size, size, 2 * flow_len).astype(np.float32) - 0.5) * 20.0
    return rgb, flow


def build_split(num_videos, num_classes, frames=4, size=32, flow_len=5, offset=0):
    rgb, flow = zip(*(rgb_and_flow(offset + v, frames, size, flow_len) for v in range(num_videos)))
    labels = (np.arange(offset, offset + num_videos) % num_classes).astype(np.int32)
    return {"rgb": np.stack(rgb), "flow": np.stack(flow)}, labels


def to_dataset(x, y, batch, rank, world, training):
    ds = tf.data.Dataset.from_tensor_slices((x, y)).shard(world, rank)
    if training:
        ds = ds.shuffle(2048).repeat()
    return ds.batch(batch, drop_remainder=training).prefetch(tf.data.AUTOTUNE)
