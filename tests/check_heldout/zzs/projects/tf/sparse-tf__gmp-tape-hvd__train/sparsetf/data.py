import tensorflow as tf
import keras


def cifar_datasets(batch_size, shard_index, num_shards):
    (x, y), (xt, yt) = keras.datasets.cifar10.load_data()
    norm = lambda a: (a.astype("float32") / 127.5) - 1.0
    train = (tf.data.Dataset.from_tensor_slices((norm(x), y[:, 0]))
             .shard(num_shards, shard_index)
             .shuffle(8192)
             .batch(batch_size, drop_remainder=True)
             .repeat())
    test = tf.data.Dataset.from_tensor_slices((norm(xt), yt[:, 0])).batch(1000)
    steps = len(x) // num_shards // batch_size
    return train, test, steps
