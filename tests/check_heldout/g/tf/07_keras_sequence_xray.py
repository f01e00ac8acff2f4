# Chest X-ray binary classifier (DenseNet121 backbone), images listed in a CSV.
# Single-GPU version used keras.utils.Sequence; ported to Horovod for the 4xV100 nodes.
#   horovodrun -np 8 python 07_keras_sequence_xray.py --csv labels.csv --img-dir /scratch/xray
import argparse
import math
import os

import numpy as np
import pandas as pd
import tensorflow as tf
from tensorflow import keras
import horovod.tensorflow.keras as hvd

hvd.init()

gpus = tf.config.experimental.list_physical_devices("GPU")
for gpu in gpus:
    tf.config.experimental.set_memory_growth(gpu, True)
if gpus:
    tf.config.experimental.set_visible_devices(gpus[hvd.local_rank()], "GPU")

parser = argparse.ArgumentParser()
parser.add_argument("--csv", default="labels.csv")
parser.add_argument("--img-dir", default="images")
parser.add_argument("--batch-size", type=int, default=16)
parser.add_argument("--epochs", type=int, default=20)
parser.add_argument("--lr", type=float, default=1e-4)
parser.add_argument("--size", type=int, default=224)
parser.add_argument("--out", default="xray_ckpt")
args = parser.parse_args()


class XraySequence(keras.utils.Sequence):
    def __init__(self, df, img_dir, batch_size, size, shuffle=True, augment=False):
        self.paths = [os.path.join(img_dir, f) for f in df["filename"].values]
        self.labels = df["label"].values.astype("float32")
        self.batch_size = batch_size
        self.size = size
        self.shuffle = shuffle
        self.augment = augment
        self.idx = np.arange(len(self.paths))
        self.on_epoch_end()

    def __len__(self):
        return math.ceil(len(self.paths) / self.batch_size)

    def _load(self, path):
        raw = tf.io.read_file(path)
        img = tf.image.decode_png(raw, channels=3)
        img = tf.image.resize(img, (self.size, self.size)) / 255.0
        if self.augment:
            img = tf.image.random_flip_left_right(img)
            img = tf.image.random_brightness(img, 0.1)
        return img.numpy()

    def __getitem__(self, i):
        sel = self.idx[i * self.batch_size:(i + 1) * self.batch_size]
        x = np.stack([self._load(self.paths[j]) for j in sel])
        y = self.labels[sel]
        return x, y

    def on_epoch_end(self):
        if self.shuffle:
            np.random.shuffle(self.idx)


df = pd.read_csv(args.csv)
train_df = df[df["split"] == "train"].reset_index(drop=True)
val_df = df[df["split"] == "val"].reset_index(drop=True)

train_seq = XraySequence(train_df, args.img_dir, args.batch_size, args.size, shuffle=True, augment=True)
val_seq = XraySequence(val_df, args.img_dir, args.batch_size, args.size, shuffle=False)

base = keras.applications.DenseNet121(include_top=False, weights=None,
                                      input_shape=(args.size, args.size, 3), pooling="avg")
x = keras.layers.Dropout(0.3)(base.output)
out = keras.layers.Dense(1, activation="sigmoid")(x)
model = keras.Model(base.input, out)

opt = keras.optimizers.Adam(learning_rate=args.lr * hvd.size())
opt = hvd.DistributedOptimizer(opt)
model.compile(optimizer=opt, loss="binary_crossentropy",
              metrics=[keras.metrics.AUC(name="auc"), "accuracy"])

callbacks = [
    hvd.callbacks.MetricAverageCallback(),
    keras.callbacks.ReduceLROnPlateau(monitor="val_loss", factor=0.5, patience=3, min_lr=1e-6),
]
if hvd.rank() == 0:
    os.makedirs(args.out, exist_ok=True)
    callbacks.append(keras.callbacks.ModelCheckpoint(os.path.join(args.out, "best.h5"),
                                                     monitor="val_auc", mode="max",
                                                     save_best_only=True))
    callbacks.append(keras.callbacks.TensorBoard(log_dir=os.path.join(args.out, "tb")))

model.fit(train_seq,
          validation_data=val_seq,
          epochs=args.epochs,
          callbacks=callbacks,
          workers=4,
          use_multiprocessing=False,
          verbose=1 if hvd.rank() == 0 else 0)
