# ISIC 2019 skin lesion classification (8 classes), EfficientNet-ish CNN, Keras 3 + Horovod.
# Data: preprocessed to 128x128 uint8 arrays in one .npz (x_train, y_train, x_val, y_val).
#
#   mpirun -np 4 -bind-to none python train_hvd.py --data /nfs/turbo/isic/isic2019_128.npz
import argparse
import os

import numpy as np
import tensorflow as tf
import keras
from keras import layers
import horovod.tensorflow.keras as hvd

parser = argparse.ArgumentParser()
parser.add_argument("--data", default="/nfs/turbo/isic/isic2019_128.npz")
parser.add_argument("--epochs", type=int, default=40)
parser.add_argument("--batch-size", type=int, default=32)
parser.add_argument("--lr", type=float, default=3e-4)
parser.add_argument("--label-smoothing", type=float, default=0.1)
parser.add_argument("--out", default="models/isic_cnn")
args = parser.parse_args()

hvd.init()
gpus = tf.config.experimental.list_physical_devices("GPU")
for gpu in gpus:
    tf.config.experimental.set_memory_growth(gpu, True)
if gpus:
    tf.config.experimental.set_visible_devices(gpus[hvd.local_rank()], "GPU")

data = np.load(args.data)
x_train, y_train = data["x_train"], data["y_train"]
x_val, y_val = data["x_val"], data["y_val"]
num_classes = int(y_train.max()) + 1
if hvd.rank() == 0:
    print("train", x_train.shape, "val", x_val.shape, "classes", num_classes)

augment = keras.Sequential([layers.RandomFlip("horizontal_and_vertical"), layers.RandomRotation(0.2),
                            layers.RandomZoom(0.1)])


def prep(x, y, training):
    x = tf.cast(x, tf.float32) / 255.0
    if training:
        x = augment(x, training=True)
    return x, tf.one_hot(tf.cast(y, tf.int32), num_classes)


train_ds = (tf.data.Dataset.from_tensor_slices((x_train, y_train))
            .shard(hvd.size(), hvd.rank())
            .shuffle(10000)
            .batch(args.batch_size)
            .map(lambda x, y: prep(x, y, True), num_parallel_calls=tf.data.AUTOTUNE)
            .repeat()
            .prefetch(tf.data.AUTOTUNE))
val_ds = (tf.data.Dataset.from_tensor_slices((x_val, y_val))
          .shard(hvd.size(), hvd.rank())
          .batch(args.batch_size)
          .map(lambda x, y: prep(x, y, False))
          .prefetch(tf.data.AUTOTUNE))
steps_per_epoch = len(x_train) // (args.batch_size * hvd.size())


def build_model(num_classes, input_shape=(128, 128, 3)):
    inp = keras.Input(input_shape)
    x = inp
    for f in (32, 64, 128, 256):
        x = layers.Conv2D(f, 3, padding="same", use_bias=False)(x)
        x = layers.BatchNormalization()(x)
        x = layers.Activation("swish")(x)
        x = layers.SeparableConv2D(f, 3, padding="same", activation="swish")(x)
        x = layers.MaxPooling2D()(x)
    x = layers.GlobalAveragePooling2D()(x)
    x = layers.Dropout(0.3)(x)
    return keras.Model(inp, layers.Dense(num_classes, activation="softmax")(x))


model = build_model(num_classes)
optimizer = keras.optimizers.Adam(learning_rate=args.lr)
optimizer = hvd.DistributedOptimizer(optimizer)
model.compile(optimizer=optimizer,
              loss=keras.losses.CategoricalCrossentropy(label_smoothing=args.label_smoothing),
              metrics=["accuracy", keras.metrics.TopKCategoricalAccuracy(k=2, name="top2")])

callbacks = [hvd.callbacks.BroadcastGlobalVariablesCallback(0)]
if hvd.rank() == 0:
    os.makedirs(args.out, exist_ok=True)
    callbacks.append(keras.callbacks.ModelCheckpoint(os.path.join(args.out, "best.keras"),
                                                     monitor="val_accuracy", save_best_only=True))
    callbacks.append(keras.callbacks.TensorBoard(log_dir=os.path.join(args.out, "tb")))

history = model.fit(train_ds, steps_per_epoch=steps_per_epoch, epochs=args.epochs, validation_data=val_ds,
                    callbacks=callbacks, verbose=2 if hvd.rank() == 0 else 0)

val_loss, val_acc, val_top2 = model.evaluate(val_ds, verbose=0)
if hvd.rank() == 0:
    print(f"final val loss {val_loss:.4f} acc {val_acc:.4f} top-2 {val_top2:.4f}")
    np.save(os.path.join(args.out, "history.npy"), history.history)
