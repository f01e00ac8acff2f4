#!/usr/bin/env python
"""Road segmentation from satellite tiles (TFRecords), Keras UNet, Horovod."""
import argparse
import glob
import os

import tensorflow as tf
import horovod.tensorflow.keras as hvd


def get_args():
    p = argparse.ArgumentParser()
    p.add_argument("--records", default="/lustre/proj/roads/tfrecords")
    p.add_argument("--epochs", type=int, default=40)
    p.add_argument("--batch", type=int, default=16)
    p.add_argument("--lr", type=float, default=1e-4)
    p.add_argument("--out", default="out_unet")
    return p.parse_args()


def parse_example(rec):
    feats = tf.io.parse_single_example(rec, {
        "image": tf.io.FixedLenFeature([], tf.string),
        "mask": tf.io.FixedLenFeature([], tf.string)})
    img = tf.image.convert_image_dtype(tf.io.decode_png(feats["image"], 3), tf.float32)
    mask = tf.cast(tf.io.decode_png(feats["mask"], 1) > 127, tf.float32)
    img = tf.image.resize(img, (256, 256))
    mask = tf.image.resize(mask, (256, 256), method="nearest")
    return img, mask


def make_ds(files, batch, training):
    ds = tf.data.Dataset.from_tensor_slices(files)
    if training:
        ds = ds.shard(hvd.size(), hvd.rank()).shuffle(len(files))
    ds = ds.interleave(tf.data.TFRecordDataset, cycle_length=4, num_parallel_calls=tf.data.AUTOTUNE)
    ds = ds.map(parse_example, num_parallel_calls=tf.data.AUTOTUNE)
    if training:
        ds = ds.shuffle(512)
    return ds.batch(batch).prefetch(tf.data.AUTOTUNE)


def unet(n=32):
    L = tf.keras.layers
    inp = tf.keras.Input((256, 256, 3))
    skips, x = [], inp
    for i in range(4):
        x = L.Conv2D(n * 2 ** i, 3, padding="same", activation="relu")(x)
        x = L.Conv2D(n * 2 ** i, 3, padding="same", activation="relu")(x)
        skips.append(x)
        x = L.MaxPooling2D()(x)
    x = L.Conv2D(n * 16, 3, padding="same", activation="relu")(x)
    for i in reversed(range(4)):
        x = L.Conv2DTranspose(n * 2 ** i, 2, 2, padding="same")(x)
        x = L.Concatenate()([x, skips[i]])
        x = L.Conv2D(n * 2 ** i, 3, padding="same", activation="relu")(x)
    out = L.Conv2D(1, 1, activation="sigmoid")(x)
    return tf.keras.Model(inp, out)


def main():
    args = get_args()
    hvd.init()
    gpus = tf.config.list_physical_devices("GPU")
    if gpus:
        tf.config.set_visible_devices(gpus[hvd.local_rank()], "GPU")
        tf.config.experimental.set_memory_growth(gpus[hvd.local_rank()], True)

    train_files = sorted(glob.glob(os.path.join(args.records, "train-*.tfrecord")))
    val_files = sorted(glob.glob(os.path.join(args.records, "val-*.tfrecord")))
    train_ds = make_ds(train_files, args.batch, True)
    val_ds = make_ds(val_files, args.batch, False)

    os.makedirs(args.out, exist_ok=True)
    model = unet()
    opt = tf.keras.optimizers.Adam(learning_rate=args.lr * hvd.size())
    opt = hvd.DistributedOptimizer(opt)
    model.compile(opt, loss="binary_crossentropy",
                  metrics=[tf.keras.metrics.BinaryIoU(target_class_ids=[1], name="iou")])

    hvd_callbacks = [
        hvd.callbacks.BroadcastGlobalVariablesCallback(0),
        hvd.callbacks.MetricAverageCallback(),
    ]
    callbacks = [
        tf.keras.callbacks.EarlyStopping(monitor="val_iou", mode="max", patience=6),
        tf.keras.callbacks.CSVLogger(os.path.join(args.out, f"log_rank{hvd.rank()}.csv")),
    ]
    if hvd.rank() == 0:
        callbacks.append(tf.keras.callbacks.ModelCheckpoint(os.path.join(args.out, "unet_best.h5"),
                                                            monitor="val_iou", mode="max", save_best_only=True))
        callbacks.append(tf.keras.callbacks.TensorBoard(os.path.join(args.out, "tb")))

    model.fit(train_ds, epochs=args.epochs, validation_data=val_ds, callbacks=callbacks,
              verbose=1 if hvd.rank() == 0 else 0)


if __name__ == "__main__":
    main()
