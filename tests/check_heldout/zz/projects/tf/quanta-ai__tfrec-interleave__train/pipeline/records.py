import tensorflow as tf

FEATURES = {
    "signal": tf.io.FixedLenFeature([1024], tf.float32),
    "label": tf.io.FixedLenFeature([], tf.int64),
}


def parse_example(serialized):
    ex = tf.io.parse_single_example(serialized, FEATURES)
    x = tf.reshape(ex["signal"], [1024, 1])
    x = (x - tf.reduce_mean(x)) / (tf.math.reduce_std(x) + 1e-6)
    return x, tf.cast(ex["label"], tf.int32)


def write_shard(path, signals, labels):
    with tf.io.TFRecordWriter(path) as w:
        for s, l in zip(signals, labels):
            feat = {"signal": tf.train.Feature(float_list=tf.train.FloatList(value=s)),
                    "label": tf.train.Feature(int64_list=tf.train.Int64List(value=[int(l)]))}
            w.write(tf.train.Example(features=tf.train.Features(feature=feat)).SerializeToString())
