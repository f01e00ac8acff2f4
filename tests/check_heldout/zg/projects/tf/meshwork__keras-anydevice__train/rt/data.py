import tensorflow as tf
import horovod.tensorflow.keras as hvd


def mesh_quality_dataset(path, batch, training):
    """Rows of 32 mesh statistics and a 0/1 'needs remeshing' flag, from a .csv file."""
    ds = tf.data.experimental.CsvDataset(path, [tf.float32] * 33, header=True)
    ds = ds.map(lambda *cols: (tf.stack(cols[:32]), cols[32]), num_parallel_calls=tf.data.AUTOTUNE)
    ds = ds.shard(hvd.size(), hvd.rank())
    if training:
        ds = ds.shuffle(20000).repeat()
    return ds.batch(batch).prefetch(tf.data.AUTOTUNE)


def count_rows(path):
    with open(path) as f:
        return sum(1 for _ in f) - 1
