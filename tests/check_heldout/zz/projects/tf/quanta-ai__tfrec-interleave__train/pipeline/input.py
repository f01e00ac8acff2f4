import tensorflow as tf

from .records import parse_example


def make_dataset(pattern, batch_size, num_shards, shard_index, training, seed=0,
                 cycle_length=4):
    """Files are listed in a fixed order and split by worker before interleaving."""
    files = tf.data.Dataset.list_files(pattern, shuffle=False)
    files = files.shard(num_shards, shard_index)
    if training:
        files = files.shuffle(64, seed=seed, reshuffle_each_iteration=True)
    ds = files.interleave(tf.data.TFRecordDataset, cycle_length=cycle_length,
                          num_parallel_calls=tf.data.AUTOTUNE, deterministic=not training)
    ds = ds.map(parse_example, num_parallel_calls=tf.data.AUTOTUNE)
    if training:
        ds = ds.shuffle(4096, seed=seed).repeat()
    return ds.batch(batch_size, drop_remainder=training).prefetch(tf.data.AUTOTUNE)
