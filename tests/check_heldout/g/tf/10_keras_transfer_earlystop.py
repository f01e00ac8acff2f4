"""Fine-tune MobileNetV2 on a folder-per-class flower/plant dataset with Horovod + tf.keras.

Resumes from <out>/last.h5 if present.  Early stopping on the (full) validation set.
"""
import argparse
import logging
import os

import tensorflow as tf
import horovod.tensorflow.keras as hvd

log = logging.getLogger("finetune")

DEFAULTS = {
    "img_size": 224,
    "batch_size": 32,
    "lr": 3e-4,
    "epochs": 40,
    "patience": 6,
}


def get_args():
    ap = argparse.ArgumentParser()
    ap.add_argument("--train-dir", required=True)
    ap.add_argument("--val-dir", required=True)
    ap.add_argument("--out", default="runs/mnv2")
    for k, v in DEFAULTS.items():
        ap.add_argument("--" + k.replace("_", "-"), type=type(v), default=v)
    return ap.parse_args()


def pin_gpu():
    gpus = tf.config.list_physical_devices("GPU")
    for g in gpus:
        tf.config.experimental.set_memory_growth(g, True)
    if gpus:
        tf.config.experimental.set_visible_devices(gpus[hvd.local_rank()], "GPU")


def datasets(args):
    size = (args.img_size, args.img_size)
    # unbatched, unshuffled file order -> identical on every worker, then split by worker
    train = tf.keras.utils.image_dataset_from_directory(
        args.train_dir, image_size=size, batch_size=None, shuffle=False, label_mode="int")
    num_classes = len(train.class_names)
    val = tf.keras.utils.image_dataset_from_directory(
        args.val_dir, image_size=size, batch_size=args.batch_size, shuffle=False, label_mode="int")

    prep = tf.keras.applications.mobilenet_v2.preprocess_input
    train = (train.shard(hvd.size(), hvd.rank())
             .shuffle(4096)
             .map(lambda x, y: (prep(tf.image.random_flip_left_right(x)), y),
                  num_parallel_calls=tf.data.AUTOTUNE)
             .batch(args.batch_size)
             .prefetch(tf.data.AUTOTUNE))
    val = val.map(lambda x, y: (prep(x), y)).cache().prefetch(tf.data.AUTOTUNE)
    return train, val, num_classes


def make_model(num_classes, img_size):
    base = tf.keras.applications.MobileNetV2(input_shape=(img_size, img_size, 3),
                                             include_top=False, weights=None)
    x = tf.keras.layers.GlobalAveragePooling2D()(base.output)
    x = tf.keras.layers.Dropout(0.2)(x)
    out = tf.keras.layers.Dense(num_classes, activation="softmax")(x)
    return tf.keras.Model(base.input, out)


def main():
    args = get_args()
    hvd.init()
    pin_gpu()
    logging.basicConfig(level=logging.INFO if hvd.rank() == 0 else logging.ERROR)

    train, val, num_classes = datasets(args)
    model = make_model(num_classes, args.img_size)

    last = os.path.join(args.out, "last.h5")
    initial_epoch = 0
    if os.path.exists(last):
        # shared filesystem: all workers load, the broadcast callback makes it exact
        model.load_weights(last)
        with open(os.path.join(args.out, "epoch.txt")) as f:
            initial_epoch = int(f.read().strip())
        log.info("resuming from epoch %d", initial_epoch)

    opt = tf.keras.optimizers.Adam(learning_rate=args.lr * hvd.size())
    opt = hvd.DistributedOptimizer(opt, compression=hvd.Compression.fp16)
    model.compile(optimizer=opt, loss="sparse_categorical_crossentropy", metrics=["accuracy"])

    cbs = [
        hvd.callbacks.BroadcastGlobalVariablesCallback(root_rank=0),
        hvd.callbacks.MetricAverageCallback(),
        tf.keras.callbacks.ReduceLROnPlateau(monitor="val_loss", factor=0.3, patience=3),
        tf.keras.callbacks.EarlyStopping(monitor="val_loss", patience=args.patience,
                                         restore_best_weights=True),
    ]
    if hvd.rank() == 0:
        os.makedirs(args.out, exist_ok=True)
        cbs += [
            tf.keras.callbacks.ModelCheckpoint(os.path.join(args.out, "best.h5"),
                                               monitor="val_loss", save_best_only=True),
            tf.keras.callbacks.ModelCheckpoint(last, save_weights_only=True),
            tf.keras.callbacks.LambdaCallback(on_epoch_end=lambda e, logs: open(
                os.path.join(args.out, "epoch.txt"), "w").write(str(e + 1))),
            tf.keras.callbacks.TensorBoard(os.path.join(args.out, "tb")),
        ]

    model.fit(train, validation_data=val, epochs=args.epochs, initial_epoch=initial_epoch,
              callbacks=cbs, verbose=2 if hvd.rank() == 0 else 0)

    if hvd.rank() == 0:
        loss, acc = model.evaluate(val, verbose=0)
        log.info("final val loss %.4f acc %.4f", loss, acc)


if __name__ == "__main__":
    main()
