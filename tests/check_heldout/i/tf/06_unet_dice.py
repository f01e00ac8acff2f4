"""U-Net for nuclei segmentation (256x256 tiles, binary masks) with a BCE + Dice loss.

Runs on the 4-GPU nodes:  srun -n 8 python 06_unet_dice.py
"""
import glob
import os
import random

import horovod.keras as hvd

hvd.init()
os.environ["CUDA_VISIBLE_DEVICES"] = str(hvd.local_rank())

import tensorflow as tf
from tensorflow import keras
from tensorflow.keras import layers

cfg = dict(
    tiles="/project/seg/tiles/*.png",
    masks_dir="/project/seg/masks",
    size=256,
    batch=8,
    epochs=60,
    lr=1e-4,
    filters=32,
    ckpt="unet_nuclei.h5",
    log_dir="logs/unet",
)


def load_pair(img_path, mask_path):
    img = tf.image.decode_png(tf.io.read_file(img_path), channels=3)
    mask = tf.image.decode_png(tf.io.read_file(mask_path), channels=1)
    img = tf.image.resize(img, (cfg["size"], cfg["size"])) / 255.0
    mask = tf.cast(tf.image.resize(mask, (cfg["size"], cfg["size"]), method="nearest") > 0,
                   tf.float32)
    return img, mask


def flip(img, mask):
    if tf.random.uniform(()) > 0.5:
        img, mask = tf.image.flip_left_right(img), tf.image.flip_left_right(mask)
    if tf.random.uniform(()) > 0.5:
        img, mask = tf.image.flip_up_down(img), tf.image.flip_up_down(mask)
    return img, mask


def conv_block(x, f):
    x = layers.Conv2D(f, 3, padding="same", use_bias=False)(x)
    x = layers.BatchNormalization()(x)
    x = layers.Activation("relu")(x)
    x = layers.Conv2D(f, 3, padding="same", use_bias=False)(x)
    x = layers.BatchNormalization()(x)
    return layers.Activation("relu")(x)


def build_unet(size, f):
    inp = keras.Input((size, size, 3))
    skips, x = [], inp
    for mult in (1, 2, 4, 8):
        x = conv_block(x, f * mult)
        skips.append(x)
        x = layers.MaxPooling2D()(x)
    x = conv_block(x, f * 16)
    for mult, skip in zip((8, 4, 2, 1), reversed(skips)):
        x = layers.Conv2DTranspose(f * mult, 2, strides=2, padding="same")(x)
        x = conv_block(layers.concatenate([x, skip]), f * mult)
    out = layers.Conv2D(1, 1, activation="sigmoid")(x)
    return keras.Model(inp, out, name="unet")


def dice_coef(y_true, y_pred, smooth=1.0):
    inter = tf.reduce_sum(y_true * y_pred, axis=[1, 2, 3])
    union = tf.reduce_sum(y_true, axis=[1, 2, 3]) + tf.reduce_sum(y_pred, axis=[1, 2, 3])
    return tf.reduce_mean((2.0 * inter + smooth) / (union + smooth))


def bce_dice_loss(y_true, y_pred):
    bce = keras.losses.binary_crossentropy(y_true, y_pred)
    return tf.reduce_mean(bce) + (1.0 - dice_coef(y_true, y_pred))


tiles = sorted(glob.glob(cfg["tiles"]))
random.Random(0).shuffle(tiles)
n_val = max(1, len(tiles) // 10)
val_tiles, train_tiles = tiles[:n_val], tiles[n_val:]


def make_ds(paths, training):
    masks = [os.path.join(cfg["masks_dir"], os.path.basename(p)) for p in paths]
    ds = tf.data.Dataset.from_tensor_slices((paths, masks))
    if training:
        ds = ds.shuffle(len(paths), reshuffle_each_iteration=True)
    ds = ds.map(load_pair, num_parallel_calls=tf.data.AUTOTUNE)
    if training:
        ds = ds.map(flip, num_parallel_calls=tf.data.AUTOTUNE).repeat()
    return ds.batch(cfg["batch"]).prefetch(tf.data.AUTOTUNE)


train_ds = make_ds(train_tiles, training=True)
val_ds = make_ds(val_tiles, training=False)
steps_per_epoch = len(train_tiles) // cfg["batch"]

model = build_unet(cfg["size"], cfg["filters"])
opt = keras.optimizers.Adam(learning_rate=cfg["lr"] * hvd.size())
model.compile(optimizer=hvd.DistributedOptimizer(opt), loss=bce_dice_loss,
              metrics=[dice_coef, keras.metrics.BinaryIoU(target_class_ids=[1], name="iou")])

callbacks = [
    hvd.callbacks.BroadcastGlobalVariablesCallback(0),
    hvd.callbacks.MetricAverageCallback(),
    hvd.callbacks.LearningRateWarmupCallback(initial_lr=cfg["lr"] * hvd.size(), warmup_epochs=3),
]
if hvd.rank() == 0:
    callbacks += [
        keras.callbacks.ModelCheckpoint(cfg["ckpt"], monitor="val_dice_coef", mode="max",
                                        save_best_only=True),
        keras.callbacks.TensorBoard(cfg["log_dir"]),
    ]

model.fit(train_ds, steps_per_epoch=steps_per_epoch, epochs=cfg["epochs"],
          validation_data=val_ds, callbacks=callbacks, verbose=1 if hvd.rank() == 0 else 0)
