import numpy as np
import tensorflow as tf


class MnistTFRecordLoader:
    """Keeps the historical name; reads an .npz with x_train/y_train/x_test/y_test."""

    def __init__(self, config, num_shards=1, index=0):
        self.config = config
        d = np.load(config.data_path)
        x_train = (d["x_train"][..., None] / 255.0).astype("float32")
        x_test = (d["x_test"][..., None] / 255.0).astype("float32")
        self.n_train = len(x_train) // num_shards
        self.train = (tf.data.Dataset.from_tensor_slices((x_train, d["y_train"].astype("int64")))
                      .shard(num_shards, index)
                      .shuffle(4096, seed=config.seed)
                      .batch(config.batch_size, drop_remainder=True))
        self.test = (tf.data.Dataset.from_tensor_slices((x_test, d["y_test"].astype("int64")))
                     .shard(num_shards, index)
                     .batch(256))
        self.config.num_iter_per_epoch = self.n_train // config.batch_size
