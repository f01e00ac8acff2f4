import numpy as np
import tensorflow as tf

from platform_utils import retry


@retry(tries=3)
def list_tiles(index_file):
    with tf.io.gfile.GFile(index_file) as f:
        return sorted(line.strip() for line in f if line.strip())


def _load(path):
    z = np.load(path.decode() if isinstance(path, bytes) else path)
    return z["image"].astype("float32") / 255.0, z["mask"].astype("int32")


def tile_dataset(files, worker, num_workers, batch_size, training=True):
    files = tf.data.Dataset.from_tensor_slices(files).shard(num_workers, worker)
    if training:
        files = files.shuffle(1024, seed=None, reshuffle_each_iteration=True)

    def read(path):
        image, mask = tf.numpy_function(_load, [path], [tf.float32, tf.int32])
        image.set_shape([None, None, 3])
        mask.set_shape([None, None])
        return image, mask

    ds = files.map(read, num_parallel_calls=tf.data.AUTOTUNE)
    if training:
        ds = ds.repeat()
    return ds.batch(batch_size, drop_remainder=True).prefetch(2)
