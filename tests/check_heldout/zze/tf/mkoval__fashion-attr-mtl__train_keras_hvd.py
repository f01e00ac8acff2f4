import argparse
import os

import numpy as np
import tensorflow as tf
import keras
import horovod.tensorflow.keras as hvd


def get_args():
    ap = argparse.ArgumentParser(description="category + attribute multi-task CNN (Horovod, Keras fit)")
    ap.add_argument("--data", default="data/deepfashion_96.npz")
    ap.add_argument("--img", type=int, default=96)
    ap.add_argument("--batch", type=int, default=64)
    ap.add_argument("--epochs", type=int, default=30)
    ap.add_argument("--lr", type=float, default=0.02)
    ap.add_argument("--warmup-epochs", type=int, default=3)
    ap.add_argument("--attr-weight", type=float, default=2.0)
    ap.add_argument("--label-smoothing", type=float, default=0.1)
    ap.add_argument("--amp", action="store_true")
    ap.add_argument("--save", default="models/fashion_mtl.keras")
    return ap.parse_args()


def build_model(img, n_cat, n_attr):
    inp = keras.Input((img, img, 3))
    x = keras.layers.Rescaling(1.0 / 255)(inp)
    for f in (32, 64, 128, 256):
        x = keras.layers.Conv2D(f, 3, padding="same", use_bias=False)(x)
        x = keras.layers.BatchNormalization()(x)
        x = keras.layers.ReLU()(x)
        x = keras.layers.MaxPooling2D()(x)
    x = keras.layers.GlobalAveragePooling2D()(x)
    x = keras.layers.Dropout(0.3)(x)
    cat = keras.layers.Dense(n_cat, activation="softmax", dtype="float32", name="category")(x)
    attr = keras.layers.Dense(n_attr, activation="sigmoid", dtype="float32", name="attributes")(x)
    return keras.Model(inp, {"category": cat, "attributes": attr})


def to_dataset(images, cats, attrs, batch, training):
    ds = tf.data.Dataset.from_tensor_slices((images, {"category": cats, "attributes": attrs}))
    ds = ds.shard(hvd.size(), hvd.rank())
    if training:
        ds = ds.shuffle(4096).repeat()
        ds = ds.map(lambda x, y: (tf.image.random_flip_left_right(x), y), num_parallel_calls=tf.data.AUTOTUNE)
    return ds.batch(batch, drop_remainder=training).prefetch(tf.data.AUTOTUNE)


def main():
    args = get_args()
    hvd.init()
    gpus = tf.config.list_physical_devices("GPU")
    for g in gpus:
        tf.config.experimental.set_memory_growth(g, True)
    if gpus:
        tf.config.set_visible_devices(gpus[hvd.local_rank()], "GPU")
    if args.amp:
        keras.mixed_precision.set_global_policy("mixed_float16")

    d = np.load(args.data)
    n_cat, n_attr = int(d["cat_train"].max()) + 1, d["attr_train"].shape[1]
    train_ds = to_dataset(d["x_train"], d["cat_train"], d["attr_train"].astype("float32"), args.batch, True)
    val_ds = to_dataset(d["x_val"], d["cat_val"], d["attr_val"].astype("float32"), args.batch, False)
    steps_per_epoch = len(d["x_train"]) // (args.batch * hvd.size())

    model = build_model(args.img, n_cat, n_attr)
    opt = keras.optimizers.SGD(learning_rate=args.lr * hvd.size(), momentum=0.9, nesterov=True)
    model.compile(
        optimizer=hvd.DistributedOptimizer(opt),
        loss={"category": keras.losses.CategoricalCrossentropy(label_smoothing=args.label_smoothing),
              "attributes": keras.losses.BinaryCrossentropy()},
        loss_weights={"category": 1.0, "attributes": args.attr_weight},
        metrics={"category": ["accuracy"], "attributes": [keras.metrics.AUC(multi_label=True, name="auc")]},
    )

    callbacks = [
        hvd.callbacks.BroadcastGlobalVariablesCallback(0),
        hvd.callbacks.LearningRateWarmupCallback(warmup_epochs=args.warmup_epochs, verbose=1),
        keras.callbacks.LearningRateScheduler(
            lambda epoch, lr: lr if epoch < 15 else lr * 0.95),
    ]
    if hvd.rank() == 0:
        os.makedirs(os.path.dirname(args.save), exist_ok=True)
        callbacks.append(keras.callbacks.ModelCheckpoint(args.save, monitor="val_category_accuracy",
                                                         mode="max", save_best_only=True))

    model.fit(
        train_ds.map(lambda x, y: (x, {"category": tf.one_hot(y["category"], n_cat),
                                       "attributes": y["attributes"]})),
        steps_per_epoch=steps_per_epoch,
        epochs=args.epochs,
        validation_data=val_ds.map(lambda x, y: (x, {"category": tf.one_hot(y["category"], n_cat),
                                                     "attributes": y["attributes"]})),
        callbacks=callbacks,
        verbose=2 if hvd.rank() == 0 else 0,
    )
    scores = model.evaluate(val_ds.map(lambda x, y: (x, {"category": tf.one_hot(y["category"], n_cat),
                                                          "attributes": y["attributes"]})),
                            verbose=0, return_dict=True)
    if hvd.rank() == 0:
        print("validation:", {k: round(float(v), 4) for k, v in scores.items()})


if __name__ == "__main__":
    main()
