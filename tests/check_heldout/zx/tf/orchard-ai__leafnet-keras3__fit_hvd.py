"""LeafNet: plant-disease classifier, Keras 3 + Horovod.

Follows the upstream Horovod keras example: every worker reads the whole
training array in its own random order and runs 1/size of the steps.
"""
import argparse
import os

import numpy as np
import tensorflow as tf
import keras
import horovod.tensorflow.keras as hvd

ap = argparse.ArgumentParser()
ap.add_argument("--npz", default="data/plantvillage_96.npz")
ap.add_argument("--epochs", type=int, default=24)
ap.add_argument("--batch", type=int, default=48)
ap.add_argument("--lr", type=float, default=0.0125)
ap.add_argument("--warmup", type=int, default=3)
ap.add_argument("--ckpt", default="./ckpt/leafnet-{epoch:02d}.keras")
args = ap.parse_args()

hvd.init()
gpus = tf.config.experimental.list_physical_devices("GPU")
for gpu in gpus:
    tf.config.experimental.set_memory_growth(gpu, True)
if gpus:
    tf.config.experimental.set_visible_devices(gpus[hvd.local_rank()], "GPU")
verbose = 1 if hvd.rank() == 0 else 0


class MacroF1(keras.metrics.Metric):
    def __init__(self, num_classes, name="macro_f1", **kw):
        super().__init__(name=name, **kw)
        self.num_classes = num_classes
        self.cm = self.add_weight(shape=(num_classes, num_classes), initializer="zeros", name="cm")

    def update_state(self, y_true, y_pred, sample_weight=None):
        y_true = keras.ops.reshape(keras.ops.cast(y_true, "int32"), (-1,))
        y_pred = keras.ops.argmax(y_pred, axis=-1)
        self.cm.assign_add(tf.math.confusion_matrix(y_true, y_pred, self.num_classes, dtype=self.dtype))

    def result(self):
        tp = tf.linalg.diag_part(self.cm)
        prec = tp / (keras.ops.sum(self.cm, axis=0) + 1e-7)
        rec = tp / (keras.ops.sum(self.cm, axis=1) + 1e-7)
        return keras.ops.mean(2 * prec * rec / (prec + rec + 1e-7))

    def reset_state(self):
        self.cm.assign(keras.ops.zeros_like(self.cm))


data = np.load(args.npz)
x_train, y_train = data["x_train"], data["y_train"]
x_test, y_test = data["x_test"], data["y_test"]
n_classes = int(y_train.max()) + 1

train = (tf.data.Dataset.from_tensor_slices((x_train, y_train))
         .shuffle(len(x_train), reshuffle_each_iteration=True)
         .repeat()
         .map(lambda x, y: (tf.image.random_flip_left_right(tf.cast(x, tf.float32) / 255.), y),
              num_parallel_calls=tf.data.AUTOTUNE)
         .batch(args.batch)
         .prefetch(tf.data.AUTOTUNE))
test = (tf.data.Dataset.from_tensor_slices((x_test, y_test))
        .map(lambda x, y: (tf.cast(x, tf.float32) / 255., y))
        .batch(256)
        .cache())

base = keras.applications.MobileNetV2(input_shape=x_train.shape[1:], include_top=False,
                                      weights=None, alpha=0.5)
model = keras.Sequential([base, keras.layers.GlobalAveragePooling2D(),
                          keras.layers.Dropout(0.2), keras.layers.Dense(n_classes)])

scaled_lr = args.lr * hvd.size()
opt = keras.optimizers.SGD(learning_rate=scaled_lr, momentum=0.9, nesterov=True)
model.compile(optimizer=hvd.DistributedOptimizer(opt),
              loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True),
              metrics=["accuracy", MacroF1(n_classes)])

callbacks = [
    hvd.callbacks.BroadcastGlobalVariablesCallback(0),
    hvd.callbacks.MetricAverageCallback(),
    hvd.callbacks.LearningRateWarmupCallback(initial_lr=scaled_lr, warmup_epochs=args.warmup,
                                             verbose=verbose),
    hvd.callbacks.LearningRateScheduleCallback(initial_lr=scaled_lr, multiplier=0.1,
                                               start_epoch=16),
]
callbacks.extend([keras.callbacks.ModelCheckpoint(args.ckpt),
                  keras.callbacks.TensorBoard("./logs")] if hvd.rank() == 0 else [])

model.fit(train,
          steps_per_epoch=len(x_train) // args.batch // hvd.size(),
          epochs=args.epochs,
          validation_data=test,
          callbacks=callbacks,
          verbose=verbose)

score = model.evaluate(test, verbose=0)
if hvd.rank() == 0:
    print("test loss / acc / macro-F1:", score)
