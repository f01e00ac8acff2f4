# Food-101 subset classifier: EfficientNet-style small net, EMA weights, mixed precision.
# Recipe from the paper: global batch 256, SGD lr 0.1, cosine decay, 5 warmup epochs.
#
#   horovodrun -np 8 python train_ema.py --data /data/food_npz --global-batch 256
import argparse
import math
import os

import horovod.tensorflow.keras as hvd
import keras
import numpy as np
import tensorflow as tf
from keras import layers

parser = argparse.ArgumentParser()
parser.add_argument("--data", default="/data/food_npz")
parser.add_argument("--global-batch", type=int, default=256)
parser.add_argument("--lr", type=float, default=0.1, help="lr of the recipe (batch 256)")
parser.add_argument("--epochs", type=int, default=60)
parser.add_argument("--warmup", type=int, default=5)
parser.add_argument("--ema", type=float, default=0.9998)
parser.add_argument("--amp", action="store_true")
parser.add_argument("--logdir", default="logs/food_ema")
args = parser.parse_args()

hvd.init()
gpus = tf.config.list_physical_devices("GPU")
for g in gpus:
    tf.config.experimental.set_memory_growth(g, True)
if gpus:
    tf.config.set_visible_devices(gpus[hvd.local_rank()], "GPU")
if args.amp:
    keras.mixed_precision.set_global_policy("mixed_float16")

per_replica_batch = args.global_batch // hvd.size()
lr = args.lr * hvd.size()  # linear scaling rule


def load(split):
    d = np.load(os.path.join(args.data, f"{split}.npz"))
    return d["images"], d["labels"].astype("int64")


def augment(img, label):
    img = tf.image.random_flip_left_right(img)
    img = tf.image.random_brightness(img, 0.1)
    return img, label


(x_train, y_train), (x_val, y_val) = load("train"), load("val")
num_classes = int(y_train.max()) + 1
train_ds = (tf.data.Dataset.from_tensor_slices((x_train, y_train))
            .shard(hvd.size(), hvd.rank())
            .shuffle(10000).repeat()
            .map(augment, num_parallel_calls=tf.data.AUTOTUNE)
            .batch(per_replica_batch, drop_remainder=True)
            .prefetch(tf.data.AUTOTUNE))
val_ds = (tf.data.Dataset.from_tensor_slices((x_val, y_val))
          .shard(hvd.size(), hvd.rank())
          .batch(per_replica_batch))
steps_per_epoch = len(x_train) // args.global_batch


def mbconv(x, filters, expand=4, stride=1):
    cin = x.shape[-1]
    h = layers.Conv2D(cin * expand, 1, use_bias=False)(x)
    h = layers.BatchNormalization()(h)
    h = layers.Activation("swish")(h)
    h = layers.DepthwiseConv2D(3, strides=stride, padding="same", use_bias=False)(h)
    h = layers.BatchNormalization()(h)
    h = layers.Activation("swish")(h)
    h = layers.Conv2D(filters, 1, use_bias=False)(h)
    h = layers.BatchNormalization()(h)
    if stride == 1 and cin == filters:
        h = layers.Add()([x, h])
    return h


def build_model(input_shape):
    inp = keras.Input(input_shape)
    x = layers.Rescaling(1 / 127.5, offset=-1)(inp)
    x = layers.Conv2D(32, 3, strides=2, padding="same", activation="swish")(x)
    for filters, stride in [(32, 1), (48, 2), (48, 1), (96, 2), (96, 1)]:
        x = mbconv(x, filters, stride=stride)
    x = layers.GlobalAveragePooling2D()(x)
    x = layers.Dropout(0.2)(x)
    return keras.Model(inp, layers.Dense(num_classes, activation="softmax", dtype="float32")(x))


model = build_model(x_train.shape[1:])
schedule = keras.optimizers.schedules.CosineDecay(
    initial_learning_rate=0.0, decay_steps=(args.epochs - args.warmup) * steps_per_epoch,
    warmup_target=lr, warmup_steps=args.warmup * steps_per_epoch)
opt = keras.optimizers.SGD(learning_rate=schedule, momentum=0.9, nesterov=True,
                           use_ema=True, ema_momentum=args.ema)
model.compile(optimizer=hvd.DistributedOptimizer(opt),
              loss=keras.losses.SparseCategoricalCrossentropy(),
              metrics=["accuracy"])

os.makedirs(args.logdir, exist_ok=True)
callbacks = [
    hvd.callbacks.BroadcastGlobalVariablesCallback(0),
    hvd.callbacks.MetricAverageCallback(),
    keras.callbacks.SwapEMAWeights(swap_on_epoch=True),   # evaluate + save the EMA weights
    keras.callbacks.ModelCheckpoint(os.path.join(args.logdir, "ema_{epoch:03d}.keras")),
]
if hvd.rank() == 0:
    callbacks += [keras.callbacks.TensorBoard(args.logdir, update_freq=100),
                  keras.callbacks.CSVLogger(os.path.join(args.logdir, "log.csv"))]

history = model.fit(train_ds, steps_per_epoch=steps_per_epoch, epochs=args.epochs,
                    validation_data=val_ds, callbacks=callbacks,
                    verbose=1 if hvd.rank() == 0 else 0)
if hvd.rank() == 0:
    best = max(history.history["val_accuracy"])
    print(f"best val acc (EMA) {best:.4f} after {len(history.history['loss'])} epochs;"
          f" top-1 err {100 * (1 - best):.2f}%  ({math.ceil(steps_per_epoch)} steps/epoch)")
