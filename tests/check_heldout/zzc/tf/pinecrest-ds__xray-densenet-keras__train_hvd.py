"""
Pneumonia X-ray classifier: DenseNet121 (ImageNet weights from a local file) + new head,
fine-tuned with horovod.tensorflow.keras.

    mpirun -np 4 python train_hvd.py --data /shared/chest_xray --epochs 12
"""
import argparse
import glob
import os

import tensorflow as tf
import keras
import horovod.tensorflow.keras as hvd

IMG = 224
CLASSES = ["NORMAL", "PNEUMONIA"]


def list_files(root, split):
    paths, labels = [], []
    for idx, cls in enumerate(CLASSES):
        found = sorted(glob.glob(os.path.join(root, split, cls, "*.jpeg")))
        paths += found
        labels += [idx] * len(found)
    return paths, labels


def decode(path, label):
    img = tf.io.decode_jpeg(tf.io.read_file(path), channels=3)
    img = tf.image.resize(img, (IMG, IMG))
    return keras.applications.densenet.preprocess_input(img), label


def make_ds(root, split, batch, training):
    paths, labels = list_files(root, split)
    ds = tf.data.Dataset.from_tensor_slices((paths, labels))
    if training:
        ds = ds.shard(hvd.size(), hvd.rank()).shuffle(len(paths), seed=7).repeat()
    ds = ds.map(decode, num_parallel_calls=tf.data.AUTOTUNE)
    if training:
        ds = ds.map(lambda x, y: (tf.image.random_flip_left_right(x), y))
    return ds.batch(batch).prefetch(tf.data.AUTOTUNE), len(paths)


def build(weights_file):
    base = keras.applications.DenseNet121(include_top=False, weights=weights_file,
                                          input_shape=(IMG, IMG, 3), pooling="avg")
    base.trainable = False
    x = keras.layers.Dropout(0.3)(base.output)
    out = keras.layers.Dense(1, activation="sigmoid")(x)
    return keras.Model(base.input, out), base


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--data", default="/shared/chest_xray")
    ap.add_argument("--weights", default="/shared/models/densenet121_notop.h5")
    ap.add_argument("--epochs", type=int, default=12)
    ap.add_argument("--freeze-epochs", type=int, default=3)
    ap.add_argument("--batch", type=int, default=32)
    ap.add_argument("--lr", type=float, default=1e-3)
    ap.add_argument("--ckpt", default="ckpt/densenet_xray-{epoch:02d}-{val_auc:.3f}.keras")
    args = ap.parse_args()

    hvd.init()

    train_ds, n_train = make_ds(args.data, "train", args.batch, training=True)
    val_ds, _ = make_ds(args.data, "val", args.batch, training=False)
    steps = n_train // (args.batch * hvd.size())

    model, base = build(args.weights)
    opt = hvd.DistributedOptimizer(keras.optimizers.SGD(args.lr * hvd.size(), momentum=0.9))
    model.compile(opt, loss="binary_crossentropy", metrics=[keras.metrics.AUC(name="auc"), "accuracy"])

    callbacks = [
        hvd.callbacks.BroadcastGlobalVariablesCallback(0),
        hvd.callbacks.MetricAverageCallback(),
        hvd.callbacks.LearningRateWarmupCallback(warmup_epochs=2, verbose=1),
        keras.callbacks.EarlyStopping(monitor="val_auc", mode="max", patience=4),
    ]
    if hvd.rank() == 0:
        os.makedirs(os.path.dirname(args.ckpt), exist_ok=True)
        callbacks.append(keras.callbacks.ModelCheckpoint(args.ckpt, monitor="val_auc", mode="max",
                                                         save_best_only=True))

    model.fit(train_ds, steps_per_epoch=steps, epochs=args.freeze_epochs, validation_data=val_ds,
              callbacks=callbacks, verbose=1 if hvd.rank() == 0 else 0)

    # unfreeze the last dense block and continue
    base.trainable = True
    for layer in base.layers:
        if not layer.name.startswith("conv5") or isinstance(layer, keras.layers.BatchNormalization):
            layer.trainable = False
    opt = hvd.DistributedOptimizer(keras.optimizers.SGD(args.lr * 0.1 * hvd.size(), momentum=0.9))
    model.compile(opt, loss="binary_crossentropy", metrics=[keras.metrics.AUC(name="auc"), "accuracy"])
    model.fit(train_ds, steps_per_epoch=steps, epochs=args.epochs, initial_epoch=args.freeze_epochs,
              validation_data=val_ds, callbacks=callbacks[:2] + callbacks[3:],
              verbose=1 if hvd.rank() == 0 else 0)


if __name__ == "__main__":
    main()
