import keras
import tensorflow as tf
import horovod.tensorflow.keras as hvd


def cifar10(batch_size):
    (x_tr, y_tr), (x_te, y_te) = keras.datasets.cifar10.load_data()
    n_per_rank = len(x_tr) // hvd.size()
    train = (tf.data.Dataset.from_tensor_slices((x_tr.astype("float32"), y_tr.reshape(-1)))
             .shard(hvd.size(), hvd.rank())
             .shuffle(10_000)
             .batch(batch_size, drop_remainder=True)
             .prefetch(tf.data.AUTOTUNE))
    # every worker evaluates the whole test set
    test = (tf.data.Dataset.from_tensor_slices((x_te.astype("float32"), y_te.reshape(-1)))
            .batch(256).prefetch(tf.data.AUTOTUNE))
    return train, test, n_per_rank // batch_size
