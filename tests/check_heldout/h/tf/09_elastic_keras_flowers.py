#!/usr/bin/env python
"""Elastic Horovod (tf.keras fit) fine-tuning ResNet50 on the flowers TFRecords,
meant for the preemptible partition:

    horovodrun -np 8 --min-np 4 --max-np 16 \
        --host-discovery-script ./discover_hosts.sh python 09_elastic_keras_flowers.py
"""
import argparse
import glob
import os

import tensorflow as tf
import horovod.tensorflow.keras as hvd

parser = argparse.ArgumentParser()
parser.add_argument("--records", default="/shared/flowers/tfrecords/train-*.tfrecord")
parser.add_argument("--val-records", default="/shared/flowers/tfrecords/val-*.tfrecord")
parser.add_argument("--num-train", type=int, default=3303)
parser.add_argument("--batch-size", type=int, default=32)
parser.add_argument("--epochs", type=int, default=30)
parser.add_argument("--base-lr", type=float, default=0.0125)
parser.add_argument("--ckpt-dir", default="/shared/ckpt/flowers_elastic")
args = parser.parse_args()

hvd.init()

gpus = tf.config.experimental.list_physical_devices("GPU")
for gpu in gpus:
    tf.config.experimental.set_memory_growth(gpu, True)
if gpus:
    tf.config.experimental.set_visible_devices(gpus[hvd.local_rank()], "GPU")

FEATURES = {
    "image/encoded": tf.io.FixedLenFeature([], tf.string),
    "image/class/label": tf.io.FixedLenFeature([], tf.int64),
}


def decode(serialized, train=True):
    ex = tf.io.parse_single_example(serialized, FEATURES)
    img = tf.io.decode_jpeg(ex["image/encoded"], channels=3)
    img = tf.image.resize(img, (224, 224))
    if train:
        img = tf.image.random_flip_left_right(img)
    img = tf.keras.applications.resnet50.preprocess_input(img)
    return img, ex["image/class/label"] - 1


# every worker streams all files in its own random order; one "epoch" of the
# job is num_train / (batch * size) steps per worker
files = tf.data.Dataset.list_files(args.records, shuffle=True)
train_ds = (files.interleave(tf.data.TFRecordDataset, cycle_length=4, num_parallel_calls=tf.data.AUTOTUNE)
            .shuffle(2048)
            .repeat()
            .map(decode, num_parallel_calls=tf.data.AUTOTUNE)
            .batch(args.batch_size)
            .prefetch(tf.data.AUTOTUNE))
val_ds = (tf.data.TFRecordDataset(sorted(glob.glob(args.val_records)))
          .map(lambda s: decode(s, train=False))
          .batch(64))

base = tf.keras.applications.ResNet50(include_top=False, weights="imagenet",
                                      input_shape=(224, 224, 3), pooling="avg")
model = tf.keras.Sequential([
    tf.keras.Input((224, 224, 3)),
    base,
    tf.keras.layers.Dense(5, activation="softmax"),
])

opt = tf.keras.optimizers.SGD(learning_rate=args.base_lr * hvd.size(), momentum=0.9)
opt = hvd.DistributedOptimizer(opt)
model.compile(loss="sparse_categorical_crossentropy", optimizer=opt, metrics=["accuracy"])


def on_state_reset():
    # world size changed: rescale the LR to the new number of workers
    tf.keras.backend.set_value(state.model.optimizer.lr, args.base_lr * hvd.size())


state = hvd.elastic.KerasState(model, batch=0, epoch=0)
state.register_reset_callbacks([on_state_reset])

callbacks = [
    hvd.callbacks.MetricAverageCallback(),
    hvd.elastic.UpdateEpochStateCallback(state),
    hvd.elastic.UpdateBatchStateCallback(state),
    hvd.elastic.CommitStateCallback(state, batches_per_commit=50),
]
if hvd.rank() == 0:
    os.makedirs(args.ckpt_dir, exist_ok=True)
    callbacks.append(tf.keras.callbacks.ModelCheckpoint(
        os.path.join(args.ckpt_dir, "flowers-{epoch:02d}.h5"), save_weights_only=True))


@hvd.elastic.run
def train(state):
    steps = args.num_train // (args.batch_size * hvd.size())
    state.model.fit(train_ds,
                    steps_per_epoch=steps,
                    epochs=args.epochs - state.epoch,
                    validation_data=val_ds,
                    callbacks=callbacks,
                    verbose=1 if hvd.rank() == 0 else 0)


train(state)

if hvd.rank() == 0:
    model.save(os.path.join(args.ckpt_dir, "flowers_final.h5"))
