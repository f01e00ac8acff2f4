# Copyright 2023 The KWS-Tiny Authors.
"""Keyword spotting (Google Speech Commands v2, 12 classes) with a depthwise-separable CNN.

Mixed precision + Horovod data parallelism:
    horovodrun -np 4 python train_kws.py --data_dir=/data/speech_commands_v2 --epochs=60
"""
import os
import time

from absl import app, flags, logging
import numpy as np
import tensorflow as tf
from tensorflow import keras
import horovod.tensorflow as hvd

FLAGS = flags.FLAGS
flags.DEFINE_string("data_dir", "/data/speech_commands_v2", "Directory with train/val/test tfrecords.")
flags.DEFINE_string("model_dir", "/tmp/kws_tiny", "Where to write checkpoints.")
flags.DEFINE_integer("batch_size", 100, "Per-replica batch size.")
flags.DEFINE_integer("epochs", 60, "Training epochs.")
flags.DEFINE_float("learning_rate", 5e-3, "Adam learning rate.")
flags.DEFINE_integer("num_train_examples", 85511, "Size of the training split.")
flags.DEFINE_bool("mixed_precision", True, "Use mixed_float16.")

LABELS = ["silence", "unknown", "yes", "no", "up", "down", "left", "right", "on", "off", "stop", "go"]


def log_mel(audio, sample_rate=16000):
    stft = tf.signal.stft(audio, frame_length=640, frame_step=320, fft_length=1024)
    mel = tf.signal.linear_to_mel_weight_matrix(40, 513, sample_rate, 20.0, 7600.0)
    return tf.math.log(tf.tensordot(tf.abs(stft) ** 2, mel, 1) + 1e-6)[..., None]


def parse(record):
    ex = tf.io.parse_single_example(record, {"audio": tf.io.FixedLenFeature([16000], tf.float32),
                                             "label": tf.io.FixedLenFeature([], tf.int64)})
    return ex["audio"], ex["label"]


def augment(audio, label):
    shift = tf.random.uniform([], -1600, 1600, dtype=tf.int32)
    audio = tf.roll(audio, shift, axis=0)
    audio = audio + tf.random.normal(tf.shape(audio), stddev=tf.random.uniform([], 0, 0.01))
    return audio, label


def make_dataset(split, training):
    files = sorted(tf.io.gfile.glob(os.path.join(FLAGS.data_dir, f"{split}-*.tfrecord")))
    ds = tf.data.Dataset.from_tensor_slices(files)
    ds = ds.shard(hvd.size(), hvd.rank())
    ds = ds.interleave(tf.data.TFRecordDataset, num_parallel_calls=tf.data.AUTOTUNE)
    ds = ds.map(parse, num_parallel_calls=tf.data.AUTOTUNE).cache()
    if training:
        ds = ds.shuffle(10_000).map(augment, num_parallel_calls=tf.data.AUTOTUNE)
    ds = ds.map(lambda a, y: (log_mel(a), y), num_parallel_calls=tf.data.AUTOTUNE)
    return ds.batch(FLAGS.batch_size).prefetch(tf.data.AUTOTUNE)


def ds_cnn(num_classes=12, width=172):
    inp = keras.Input((49, 40, 1))
    x = keras.layers.Conv2D(width, (10, 4), strides=(2, 2), padding="same", use_bias=False)(inp)
    x = keras.layers.BatchNormalization()(x)
    x = keras.layers.ReLU()(x)
    for _ in range(4):
        x = keras.layers.DepthwiseConv2D(3, padding="same", use_bias=False)(x)
        x = keras.layers.BatchNormalization()(x)
        x = keras.layers.ReLU()(x)
        x = keras.layers.Conv2D(width, 1, use_bias=False)(x)
        x = keras.layers.BatchNormalization()(x)
        x = keras.layers.ReLU()(x)
    x = keras.layers.GlobalAveragePooling2D()(x)
    x = keras.layers.Dropout(0.2)(x)
    return keras.Model(inp, keras.layers.Dense(num_classes, dtype="float32")(x))


def main(argv):
    del argv
    hvd.init()
    for gpu in tf.config.list_physical_devices("GPU"):
        tf.config.experimental.set_memory_growth(gpu, True)
    if FLAGS.mixed_precision:
        keras.mixed_precision.set_global_policy("mixed_float16")

    train_ds = make_dataset("train", training=True)
    val_ds = make_dataset("val", training=False)

    model = ds_cnn(len(LABELS))
    optimizer = keras.optimizers.Adam(FLAGS.learning_rate)
    if FLAGS.mixed_precision:
        optimizer = keras.mixed_precision.LossScaleOptimizer(optimizer)
    loss_fn = keras.losses.SparseCategoricalCrossentropy(from_logits=True)

    train_loss = keras.metrics.Mean(name="train_loss")
    train_acc = keras.metrics.SparseCategoricalAccuracy(name="train_acc")
    val_acc = keras.metrics.SparseCategoricalAccuracy(name="val_acc")

    @tf.function
    def train_step(x, y, first_batch):
        with tf.GradientTape() as tape:
            logits = model(x, training=True)
            loss = loss_fn(y, logits)
            scaled = optimizer.scale_loss(loss) if FLAGS.mixed_precision else loss
        tape = hvd.DistributedGradientTape(tape)
        grads = tape.gradient(scaled, model.trainable_variables)
        optimizer.apply_gradients(zip(grads, model.trainable_variables))
        if first_batch:
            hvd.broadcast_variables(model.variables, root_rank=0)
            hvd.broadcast_variables(optimizer.variables, root_rank=0)
        train_loss.update_state(loss)
        train_acc.update_state(y, logits)

    @tf.function
    def eval_step(x, y):
        val_acc.update_state(y, model(x, training=False))

    ckpt = tf.train.Checkpoint(model=model, optimizer=optimizer)
    manager = tf.train.CheckpointManager(ckpt, FLAGS.model_dir, max_to_keep=3)

    first = True
    for epoch in range(FLAGS.epochs):
        start = time.time()
        for m in (train_loss, train_acc, val_acc):
            m.reset_state()
        for x, y in train_ds:
            train_step(x, y, first)
            first = False
        for x, y in val_ds:
            eval_step(x, y)
        if hvd.rank() == 0:
            logging.info("epoch %d: loss %.4f acc %.4f | val acc %.4f | %.0fs", epoch,
                         train_loss.result(), train_acc.result(), val_acc.result(), time.time() - start)
            manager.save(checkpoint_number=epoch)

    if hvd.rank() == 0:
        model.save(os.path.join(FLAGS.model_dir, "kws_tiny.keras"))


if __name__ == "__main__":
    app.run(main)
