"""Price-bucket classifier for rental listings: photo + tabular features.

Keras 3 (TF backend) + horovod.tensorflow.keras. Paths to the photos and the
numeric features come from listings.parquet (prepared by make_table.py).
"""
import os
import sys
import logging

import numpy as np
import pandas as pd
import tensorflow as tf
import keras
from keras import layers
import horovod.tensorflow.keras as hvd

hvd.init()

gpus = tf.config.list_physical_devices("GPU")
if gpus:
    tf.config.experimental.set_memory_growth(gpus[hvd.rank()], True)
    tf.config.set_visible_devices(gpus[hvd.rank()], "GPU")

logging.basicConfig(stream=sys.stdout, level=logging.INFO,
                    format=f"%(asctime)s [rank {hvd.rank()}] %(message)s")
log = logging.getLogger("listings")

CFG = {
    "table": "/work/listings/listings.parquet",
    "img_root": "/work/listings/photos",
    "img_size": 160,
    "batch_size": 48,
    "epochs": 25,
    "lr": 3e-4,
    "n_classes": 5,
    "out": "runs/listings_mm",
}
NUM_COLS = ["bedrooms", "bathrooms", "sqft", "lat", "lon", "dist_center_km",
            "has_parking", "has_balcony", "floor", "year_built"]

df = pd.read_parquet(CFG["table"])
val_df = df[df["split"] == "val"].reset_index(drop=True)
train_df = df[df["split"] == "train"].sample(frac=1.0, random_state=42).reset_index(drop=True)

mu = train_df[NUM_COLS].mean()
sd = train_df[NUM_COLS].std() + 1e-6

# rank r takes every size-th listing of the (identically shuffled) table
idx = np.arange(len(train_df))[hvd.rank()::hvd.size()]
train_df = train_df.iloc[idx].reset_index(drop=True)
log.info("%d train listings on this rank, %d val listings", len(train_df), len(val_df))


def to_dataset(frame, training):
    paths = (CFG["img_root"] + "/" + frame["photo"]).values
    nums = ((frame[NUM_COLS] - mu) / sd).values.astype("float32")
    labels = frame["price_bucket"].values.astype("int32")

    def load(path, num, y):
        img = tf.io.decode_jpeg(tf.io.read_file(path), channels=3)
        img = tf.image.resize(img, (CFG["img_size"], CFG["img_size"]))
        if training:
            img = tf.image.random_flip_left_right(img)
            img = tf.image.random_brightness(img, 0.1)
        return {"photo": img, "numeric": num}, y

    ds = tf.data.Dataset.from_tensor_slices((paths, nums, labels))
    if training:
        ds = ds.shuffle(4096)
    ds = ds.map(load, num_parallel_calls=tf.data.AUTOTUNE)
    return ds.batch(CFG["batch_size"], drop_remainder=training).prefetch(tf.data.AUTOTUNE)


train_ds = to_dataset(train_df, True)
val_ds = to_dataset(val_df, False)


def build_model():
    photo = keras.Input((CFG["img_size"], CFG["img_size"], 3), name="photo")
    numeric = keras.Input((len(NUM_COLS),), name="numeric")

    backbone = keras.applications.MobileNetV3Small(include_top=False, weights="imagenet",
                                                  input_shape=(CFG["img_size"], CFG["img_size"], 3),
                                                  pooling="avg")
    backbone.trainable = False
    a = backbone(photo)
    a = layers.Dense(128, activation="relu")(a)

    b = layers.Dense(64, activation="relu")(numeric)
    b = layers.BatchNormalization()(b)
    b = layers.Dense(64, activation="relu")(b)

    h = layers.Concatenate()([a, b])
    h = layers.Dropout(0.25)(h)
    h = layers.Dense(64, activation="relu")(h)
    out = layers.Dense(CFG["n_classes"], activation="softmax", name="bucket")(h)
    return keras.Model([photo, numeric], out)


model = build_model()
optimizer = hvd.DistributedOptimizer(keras.optimizers.Adam(learning_rate=CFG["lr"]))
model.compile(optimizer=optimizer,
              loss="sparse_categorical_crossentropy",
              metrics=["accuracy", keras.metrics.SparseTopKCategoricalAccuracy(k=2, name="top2")])

callbacks = [
    hvd.callbacks.BroadcastGlobalVariablesCallback(0),
    hvd.callbacks.MetricAverageCallback(),
    keras.callbacks.EarlyStopping(monitor="val_loss", patience=4, restore_best_weights=True),
]
if hvd.rank() == 0:
    os.makedirs(CFG["out"], exist_ok=True)
    callbacks += [
        keras.callbacks.ModelCheckpoint(os.path.join(CFG["out"], "epoch{epoch:02d}.keras")),
        keras.callbacks.TensorBoard(os.path.join(CFG["out"], "tb")),
    ]

hist = model.fit(train_ds, validation_data=val_ds, epochs=CFG["epochs"],
                 callbacks=callbacks, verbose=1 if hvd.rank() == 0 else 0)

if hvd.rank() == 0:
    pd.DataFrame(hist.history).to_csv(os.path.join(CFG["out"], "history.csv"), index=False)
    log.info("best val_acc %.4f", max(hist.history["val_accuracy"]))
