"""Building change detection on LEVIR-CD (256x256 tiles of bi-temporal image pairs).

Siamese U-Net, Keras fit, mixed precision, Horovod (no tf.distribute):
    horovodrun -np 4 python train_fit.py --root /data/LEVIR-CD-256 --epochs 100
"""
import argparse
import glob
import os

import tensorflow as tf
from tensorflow import keras
import horovod.tensorflow.keras as hvd


def parse_args():
    p = argparse.ArgumentParser()
    p.add_argument("--root", default="/data/LEVIR-CD-256")
    p.add_argument("--epochs", type=int, default=100)
    p.add_argument("--batch-size", type=int, default=8)
    p.add_argument("--lr", type=float, default=1e-4)
    p.add_argument("--warmup-epochs", type=int, default=5)
    p.add_argument("--out", default="runs/levir_siamunet")
    p.add_argument("--no-amp", action="store_true")
    return p.parse_args()


def list_split(root, split):
    a = sorted(glob.glob(os.path.join(root, split, "A", "*.png")))
    b = [p.replace(os.sep + "A" + os.sep, os.sep + "B" + os.sep) for p in a]
    m = [p.replace(os.sep + "A" + os.sep, os.sep + "label" + os.sep) for p in a]
    return a, b, m


def _read(pa, pb, pm):
    ia = tf.image.convert_image_dtype(tf.io.decode_png(tf.io.read_file(pa), 3), tf.float32)
    ib = tf.image.convert_image_dtype(tf.io.decode_png(tf.io.read_file(pb), 3), tf.float32)
    mask = tf.cast(tf.io.decode_png(tf.io.read_file(pm), 1) > 127, tf.float32)
    return tf.concat([ia, ib], -1), mask


def _flip(x, y):
    xy = tf.concat([x, y], -1)
    xy = tf.image.random_flip_left_right(tf.image.random_flip_up_down(xy))
    xy = tf.image.rot90(xy, tf.random.uniform([], 0, 4, tf.int32))
    return xy[..., :6], xy[..., 6:]


def dataset(files, batch_size, shard, training):
    ds = tf.data.Dataset.from_tensor_slices(files)
    if shard:
        ds = ds.shard(hvd.size(), hvd.rank())
    ds = ds.map(_read, num_parallel_calls=tf.data.AUTOTUNE).cache()
    if training:
        ds = ds.shuffle(2048).map(_flip, num_parallel_calls=tf.data.AUTOTUNE).repeat()
    return ds.batch(batch_size).prefetch(tf.data.AUTOTUNE)


def encoder_block(x, f):
    x = keras.layers.Conv2D(f, 3, padding="same", activation="relu")(x)
    x = keras.layers.BatchNormalization()(x)
    return keras.layers.Conv2D(f, 3, padding="same", activation="relu")(x)


def siamese_unet(filters=(32, 64, 128, 256)):
    inp = keras.Input((256, 256, 6))
    a, b = inp[..., :3], inp[..., 3:]
    enc = [keras.layers.Conv2D(f, 3, padding="same", activation="relu", name=f"enc{i}")
           for i, f in enumerate(filters)]
    skips, xa, xb = [], a, b
    for i, layer in enumerate(enc):
        xa, xb = layer(xa), layer(xb)  # shared weights
        skips.append(keras.layers.Subtract()([xa, xb]))
        if i < len(enc) - 1:
            xa, xb = keras.layers.MaxPool2D()(xa), keras.layers.MaxPool2D()(xb)
    x = keras.ops.abs(skips[-1])
    for f, skip in zip(filters[-2::-1], skips[-2::-1]):
        x = keras.layers.Conv2DTranspose(f, 2, strides=2, padding="same")(x)
        x = encoder_block(keras.layers.Concatenate()([x, keras.ops.abs(skip)]), f)
    out = keras.layers.Conv2D(1, 1, activation="sigmoid", dtype="float32")(x)
    return keras.Model(inp, out, name="siam_unet_diff")


def main():
    args = parse_args()
    hvd.init()
    gpus = tf.config.list_physical_devices("GPU")
    for gpu in gpus:
        tf.config.experimental.set_memory_growth(gpu, True)
    if gpus:
        tf.config.set_visible_devices(gpus[hvd.local_rank()], "GPU")
    if not args.no_amp:
        keras.mixed_precision.set_global_policy("mixed_float16")

    train_files = list_split(args.root, "train")
    val_files = list_split(args.root, "val")
    test_files = list_split(args.root, "test")
    n_train = len(train_files[0])
    train_ds = dataset(train_files, args.batch_size, shard=True, training=True)
    val_ds = dataset(val_files, args.batch_size, shard=True, training=False)

    model = siamese_unet()
    scaled_lr = args.lr * hvd.size()
    opt = hvd.DistributedOptimizer(keras.optimizers.Adam(scaled_lr))
    model.compile(optimizer=opt, loss=keras.losses.BinaryFocalCrossentropy(gamma=2.0),
                  metrics=[keras.metrics.BinaryIoU(target_class_ids=[1], name="iou"),
                           keras.metrics.Precision(name="precision"), keras.metrics.Recall(name="recall")])

    steps = n_train // (args.batch_size * hvd.size())
    callbacks = [
        hvd.callbacks.BroadcastGlobalVariablesCallback(0),
        hvd.callbacks.MetricAverageCallback(),
        hvd.callbacks.LearningRateWarmupCallback(initial_lr=scaled_lr, warmup_epochs=args.warmup_epochs,
                                                 steps_per_epoch=steps, verbose=0),
    ]
    if hvd.rank() == 0:
        os.makedirs(args.out, exist_ok=True)
        callbacks += [
            keras.callbacks.ModelCheckpoint(os.path.join(args.out, "best.keras"), monitor="val_iou",
                                            mode="max", save_best_only=True),
            keras.callbacks.CSVLogger(os.path.join(args.out, "log.csv")),
        ]

    model.fit(train_ds, steps_per_epoch=steps, epochs=args.epochs, validation_data=val_ds,
              callbacks=callbacks, verbose=2 if hvd.rank() == 0 else 0)

    # Final test numbers: rank 0 alone goes through the complete, unsharded test split.
    if hvd.rank() == 0:
        test_ds = dataset(test_files, args.batch_size, shard=False, training=False)
        results = model.evaluate(test_ds, return_dict=True, verbose=0)
        print("test:", {k: round(float(v), 4) for k, v in results.items()})


if __name__ == "__main__":
    main()
