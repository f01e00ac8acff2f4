"""CIFAR-100 WideResNet-ish with tf.keras + horovod.tensorflow.keras, model.fit."""
import argparse
import math
import os

import numpy as np
import tensorflow as tf
import horovod.tensorflow.keras as hvd

parser = argparse.ArgumentParser()
parser.add_argument("--epochs", type=int, default=60)
parser.add_argument("--batch-size", type=int, default=128)
parser.add_argument("--base-lr", type=float, default=0.05)
parser.add_argument("--warmup-epochs", type=int, default=5)
parser.add_argument("--logdir", default="logs/wrn")
parser.add_argument("--ckpt", default="ckpt/wrn-{epoch:03d}.h5")
args = parser.parse_args()

hvd.init()
gpus = tf.config.list_physical_devices("GPU")
for gpu in gpus:
    tf.config.experimental.set_memory_growth(gpu, True)
if gpus:
    tf.config.set_visible_devices(gpus[hvd.local_rank()], "GPU")

(x_train, y_train), (x_test, y_test) = tf.keras.datasets.cifar100.load_data()
mean = x_train.mean(axis=(0, 1, 2), keepdims=True)
std = x_train.std(axis=(0, 1, 2), keepdims=True)
x_train = ((x_train - mean) / std).astype("float32")
x_test = ((x_test - mean) / std).astype("float32")


def augment(img, label):
    img = tf.image.random_flip_left_right(img)
    img = tf.image.resize_with_crop_or_pad(img, 40, 40)
    img = tf.image.random_crop(img, (32, 32, 3))
    return img, label


train_ds = (tf.data.Dataset.from_tensor_slices((x_train, y_train))
            .repeat()
            .shuffle(50000, seed=hvd.rank())
            .map(augment, num_parallel_calls=tf.data.AUTOTUNE)
            .batch(args.batch_size)
            .prefetch(tf.data.AUTOTUNE))
steps_per_epoch = int(math.ceil(len(x_train) / (args.batch_size * hvd.size())))
val_ds = tf.data.Dataset.from_tensor_slices((x_test, y_test)).batch(500)


def conv_bn(x, f, s=1):
    x = tf.keras.layers.Conv2D(f, 3, s, padding="same", use_bias=False,
                               kernel_regularizer=tf.keras.regularizers.l2(5e-4))(x)
    x = tf.keras.layers.BatchNormalization()(x)
    return tf.keras.layers.ReLU()(x)


def res_block(x, f, s):
    shortcut = x
    y = conv_bn(x, f, s)
    y = conv_bn(y, f)
    if s != 1 or shortcut.shape[-1] != f:
        shortcut = tf.keras.layers.Conv2D(f, 1, s, use_bias=False)(shortcut)
    return tf.keras.layers.Add()([shortcut, y])


inp = tf.keras.Input((32, 32, 3))
h = conv_bn(inp, 64)
for f, s in [(64, 1), (64, 1), (128, 2), (128, 1), (256, 2), (256, 1)]:
    h = res_block(h, f, s)
h = tf.keras.layers.GlobalAveragePooling2D()(h)
out = tf.keras.layers.Dense(100, activation="softmax")(h)
model = tf.keras.Model(inp, out)

scaled_lr = args.base_lr * hvd.size()
opt = tf.keras.optimizers.SGD(learning_rate=scaled_lr, momentum=0.9, nesterov=True)
opt = hvd.DistributedOptimizer(opt, compression=hvd.Compression.fp16)
model.compile(optimizer=opt, loss="sparse_categorical_crossentropy", metrics=["accuracy"])


def step_decay(epoch, lr):
    if epoch < args.warmup_epochs:
        return lr
    return scaled_lr * (0.2 ** sum(epoch >= e for e in (30, 45, 55)))


callbacks = [
    hvd.callbacks.BroadcastGlobalVariablesCallback(0),
    hvd.callbacks.MetricAverageCallback(),
    hvd.callbacks.LearningRateWarmupCallback(initial_lr=scaled_lr, warmup_epochs=args.warmup_epochs,
                                             steps_per_epoch=steps_per_epoch, verbose=1),
    tf.keras.callbacks.LearningRateScheduler(step_decay),
]
if hvd.rank() == 0:
    os.makedirs(os.path.dirname(args.ckpt), exist_ok=True)
    callbacks.append(tf.keras.callbacks.ModelCheckpoint(args.ckpt, save_freq="epoch"))
    callbacks.append(tf.keras.callbacks.TensorBoard(log_dir=args.logdir))

model.fit(train_ds,
          steps_per_epoch=steps_per_epoch,
          epochs=args.epochs,
          validation_data=val_ds,
          callbacks=callbacks,
          verbose=2 if hvd.rank() == 0 else 0)

score = model.evaluate(val_ds, verbose=0)
if hvd.rank() == 0:
    print("final test loss %.4f acc %.4f" % tuple(score))
