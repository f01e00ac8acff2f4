import tensorflow as tf

from . import comm

_FEATURES = {"image/encoded": tf.io.FixedLenFeature([], tf.string),
             "image/class/label": tf.io.FixedLenFeature([], tf.int64)}


def _decode(size, training):
    def fn(record):
        ex = tf.io.parse_single_example(record, _FEATURES)
        img = tf.image.resize(tf.io.decode_jpeg(ex["image/encoded"], channels=3), (size, size))
        if training:
            img = tf.image.random_flip_left_right(img)
        return tf.keras.applications.resnet50.preprocess_input(img), ex["image/class/label"]
    return fn


def build_train_dataset(cfg):
    files = tf.data.Dataset.list_files(cfg.DATASETS.TRAIN, shuffle=False)
    files = files.shard(comm.get_world_size(), comm.get_rank())
    ds = files.interleave(tf.data.TFRecordDataset, cycle_length=8, num_parallel_calls=tf.data.AUTOTUNE)
    ds = ds.shuffle(8192).repeat().map(_decode(cfg.INPUT.SIZE, True), num_parallel_calls=tf.data.AUTOTUNE)
    return ds.batch(cfg.SOLVER.IMS_PER_BATCH_PER_WORKER, drop_remainder=True).prefetch(tf.data.AUTOTUNE)


def build_test_dataset(cfg):
    files = tf.data.Dataset.list_files(cfg.DATASETS.TEST, shuffle=False)
    ds = files.shard(comm.get_world_size(), comm.get_rank()).flat_map(tf.data.TFRecordDataset)
    return ds.map(_decode(cfg.INPUT.SIZE, False)).batch(cfg.TEST.BATCH_SIZE)
