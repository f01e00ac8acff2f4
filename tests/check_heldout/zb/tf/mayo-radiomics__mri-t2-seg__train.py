# Prostate zonal segmentation on axial T2w slices (PZ / TZ), 2D U-Net, Keras 3.
# Ported from our 2020 tf.keras + horovod pipeline (train_t2_v1.py) to Keras 3.
#
#   srun --ntasks-per-node=4 python train.py --data /research/radiomics/prostate/t2_slices_256.npz
import argparse
import os

import horovod.tensorflow.keras as hvd

hvd.init()
# one GPU per worker
os.environ["CUDA_VISIBLE_DEVICES"] = str(hvd.rank())

import numpy as np
import tensorflow as tf
import keras
from keras import layers

parser = argparse.ArgumentParser()
parser.add_argument("--data", default="/research/radiomics/prostate/t2_slices_256.npz")
parser.add_argument("--out", default="/research/radiomics/models/t2_zonal")
parser.add_argument("--epochs", type=int, default=100)
parser.add_argument("--batch-size", type=int, default=8)
parser.add_argument("--lr", type=float, default=1e-4)
parser.add_argument("--warmup", type=int, default=5)
args = parser.parse_args()

N_CLASSES = 3  # background, peripheral zone, transition zone


def load_split(path):
    with np.load(path) as z:
        x, y, case = z["t2"].astype(np.float32), z["zones"].astype(np.int32), z["case_id"]
    x = (x - x.mean(axis=(1, 2), keepdims=True)) / (x.std(axis=(1, 2), keepdims=True) + 1e-6)
    val_cases = np.unique(case)[::5]                 # every 5th patient held out
    is_val = np.isin(case, val_cases)
    return (x[~is_val, ..., None], y[~is_val]), (x[is_val, ..., None], y[is_val])


(x_tr, y_tr), (x_va, y_va) = load_split(args.data)


def augment(x, y):
    flip = tf.random.uniform([]) < 0.5
    x = tf.cond(flip, lambda: tf.image.flip_left_right(x), lambda: x)
    y = tf.cond(flip, lambda: tf.reverse(y, axis=[1]), lambda: y)
    return x, y


train_ds = (tf.data.Dataset.from_tensor_slices((x_tr, y_tr))
            .shard(hvd.size(), hvd.rank())
            .shuffle(2048, reshuffle_each_iteration=True)
            .map(augment, num_parallel_calls=tf.data.AUTOTUNE)
            .batch(args.batch_size, drop_remainder=True)
            .repeat()
            .prefetch(tf.data.AUTOTUNE))
val_ds = (tf.data.Dataset.from_tensor_slices((x_va, y_va))
          .shard(hvd.size(), hvd.rank())
          .batch(args.batch_size)
          .prefetch(tf.data.AUTOTUNE))
steps_per_epoch = len(x_tr) // (args.batch_size * hvd.size())


def conv_block(x, f):
    x = layers.Conv2D(f, 3, padding="same", use_bias=False)(x)
    x = layers.BatchNormalization()(x)
    x = layers.Activation("relu")(x)
    x = layers.Conv2D(f, 3, padding="same", use_bias=False)(x)
    x = layers.BatchNormalization()(x)
    return layers.Activation("relu")(x)


def unet(shape=(256, 256, 1), base=16):
    inp = keras.Input(shape)
    skips, x = [], inp
    for i in range(4):
        x = conv_block(x, base * 2 ** i)
        skips.append(x)
        x = layers.MaxPooling2D()(x)
    x = conv_block(x, base * 16)
    for i in reversed(range(4)):
        x = layers.Conv2DTranspose(base * 2 ** i, 2, strides=2)(x)
        x = conv_block(layers.Concatenate()([x, skips[i]]), base * 2 ** i)
    return keras.Model(inp, layers.Conv2D(N_CLASSES, 1, activation="softmax")(x), name="t2_unet")


class ZonalDice(keras.metrics.Metric):
    def __init__(self, name="val_dice_fg", **kw):
        super().__init__(name=name, **kw)
        self.inter = self.add_weight(shape=(), initializer="zeros", name="inter")
        self.total = self.add_weight(shape=(), initializer="zeros", name="total")

    def update_state(self, y_true, y_pred, sample_weight=None):
        y_true = tf.one_hot(tf.cast(y_true, tf.int32), N_CLASSES)[..., 1:]
        y_pred = tf.one_hot(tf.argmax(y_pred, -1), N_CLASSES)[..., 1:]
        self.inter.assign_add(tf.reduce_sum(y_true * y_pred))
        self.total.assign_add(tf.reduce_sum(y_true) + tf.reduce_sum(y_pred))

    def result(self):
        return 2.0 * self.inter / (self.total + 1e-6)


model = unet(x_tr.shape[1:])
opt = keras.optimizers.Adam(learning_rate=args.lr * hvd.size())
opt = hvd.DistributedOptimizer(opt)
model.compile(optimizer=opt, loss=keras.losses.SparseCategoricalCrossentropy(), metrics=[ZonalDice(name="dice")])

callbacks = [
    hvd.callbacks.BroadcastGlobalVariablesCallback(0),
    hvd.callbacks.LearningRateWarmupCallback(warmup_epochs=args.warmup, steps_per_epoch=steps_per_epoch, verbose=1),
    keras.callbacks.EarlyStopping(monitor="val_dice", mode="max", patience=15),
]
if hvd.rank() == 0:
    os.makedirs(args.out, exist_ok=True)
    callbacks.append(keras.callbacks.ModelCheckpoint(os.path.join(args.out, "best.keras"), monitor="val_dice",
                                                     mode="max", save_best_only=True))
    callbacks.append(keras.callbacks.CSVLogger(os.path.join(args.out, "log.csv")))

model.fit(train_ds, epochs=args.epochs, steps_per_epoch=steps_per_epoch, validation_data=val_ds,
          callbacks=callbacks, verbose=1 if hvd.rank() == 0 else 0)
