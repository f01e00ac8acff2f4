"""CSE 490G1 HW5, part B: scale the HW4 CIFAR-10 ResNet to several GPUs with Horovod.

Launch with:  horovodrun -np 4 python cifar_fit.py --epochs 30
"""
import argparse
import os

import numpy as np
import tensorflow as tf
import keras
import horovod.tensorflow.keras as hvd

parser = argparse.ArgumentParser()
parser.add_argument("--epochs", type=int, default=30)
parser.add_argument("--batch-size", type=int, default=128)
parser.add_argument("--base-lr", type=float, default=1e-3)
parser.add_argument("--out", default="hw5_out")
args = parser.parse_args()

# ---- Horovod setup --------------------------------------------------------
hvd.init()
gpus = tf.config.experimental.list_physical_devices("GPU")
for gpu in gpus:
    tf.config.experimental.set_memory_growth(gpu, True)
if gpus:
    tf.config.experimental.set_visible_devices(gpus[hvd.local_rank()], "GPU")


# ---- data -----------------------------------------------------------------
def load_cifar():
    (x_train, y_train), (x_test, y_test) = keras.datasets.cifar10.load_data()
    x_train = x_train.astype("float32") / 255.0
    x_test = x_test.astype("float32") / 255.0
    return (x_train, y_train.flatten()), (x_test, y_test.flatten())


def augment(x, y):
    x = tf.image.random_flip_left_right(x)
    x = tf.image.pad_to_bounding_box(x, 4, 4, 40, 40)
    x = tf.image.random_crop(x, (32, 32, 3))
    return x, y


(x_train, y_train), (x_test, y_test) = load_cifar()
train_ds = (tf.data.Dataset.from_tensor_slices((x_train, y_train))
            .shard(hvd.size(), hvd.rank())
            .shuffle(10000)
            .map(augment, num_parallel_calls=tf.data.AUTOTUNE)
            .batch(args.batch_size, drop_remainder=True)
            .prefetch(tf.data.AUTOTUNE))
val_ds = (tf.data.Dataset.from_tensor_slices((x_test, y_test))
          .shard(hvd.size(), hvd.rank())
          .batch(args.batch_size))


# ---- model (same as HW4) --------------------------------------------------
def res_block(x, filters, stride=1):
    shortcut = x
    x = keras.layers.Conv2D(filters, 3, stride, padding="same", use_bias=False)(x)
    x = keras.layers.BatchNormalization()(x)
    x = keras.layers.ReLU()(x)
    x = keras.layers.Conv2D(filters, 3, padding="same", use_bias=False)(x)
    x = keras.layers.BatchNormalization()(x)
    if stride != 1 or shortcut.shape[-1] != filters:
        shortcut = keras.layers.Conv2D(filters, 1, stride, use_bias=False)(shortcut)
    return keras.layers.ReLU()(x + shortcut)


def build_model():
    inp = keras.Input((32, 32, 3))
    x = keras.layers.Conv2D(32, 3, padding="same")(inp)
    for filters, stride in [(32, 1), (64, 2), (128, 2)]:
        x = res_block(x, filters, stride)
    x = keras.layers.GlobalAveragePooling2D()(x)
    return keras.Model(inp, keras.layers.Dense(10)(x))


model = build_model()
scaled_lr = args.base_lr * hvd.size()
opt = hvd.DistributedOptimizer(keras.optimizers.Adam(learning_rate=scaled_lr))
model.compile(optimizer=opt,
              loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True),
              metrics=["accuracy"])

callbacks = [
    hvd.callbacks.BroadcastGlobalVariablesCallback(0),
    # gradually ramp the lr up to scaled_lr over the first epochs (Goyal et al.)
    hvd.callbacks.LearningRateWarmupCallback(warmup_epochs=3, verbose=1),
]
if hvd.rank() == 0:
    os.makedirs(args.out, exist_ok=True)
    callbacks.append(keras.callbacks.ModelCheckpoint(os.path.join(args.out, "ckpt-{epoch:02d}.keras")))
    callbacks.append(keras.callbacks.CSVLogger(os.path.join(args.out, "history.csv")))

history = model.fit(train_ds, validation_data=val_ds, epochs=args.epochs,
                    callbacks=callbacks, verbose=1 if hvd.rank() == 0 else 0)

loss, acc = model.evaluate(val_ds, verbose=0)
if hvd.rank() == 0:
    print(f"final test accuracy: {acc:.4f}")
    np.save(os.path.join(args.out, "val_acc.npy"), np.array(history.history["val_accuracy"]))
