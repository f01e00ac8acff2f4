import os
import sys

import keras
import numpy as np
import tensorflow as tf
import horovod.keras as hvd

# ---------------------------------------------------------------- config
cfg = dict(
    epochs=120,
    batch_size=128,
    lr=0.1,
    momentum=0.9,
    weight_decay=5e-4,
    warmup_epochs=5,
    ckpt_dir=os.environ.get("CKPT_DIR", "./resnet20_ckpt"),
    seed=42,
)

hvd.init()

gpus = tf.config.list_physical_devices("GPU")
if gpus:
    tf.config.experimental.set_memory_growth(gpus[hvd.local_rank()], True)
    tf.config.set_visible_devices(gpus[hvd.local_rank()], "GPU")

keras.utils.set_random_seed(cfg["seed"])

# ---------------------------------------------------------------- data
(x_train, y_train), (x_test, y_test) = keras.datasets.cifar10.load_data()
mean = x_train.mean(axis=(0, 1, 2)) / 255.0
std = x_train.std(axis=(0, 1, 2)) / 255.0
x_train = ((x_train / 255.0 - mean) / std).astype("float32")
x_test = ((x_test / 255.0 - mean) / std).astype("float32")

# give every worker its own slice of train and test
x_train, y_train = x_train[hvd.rank()::hvd.size()], y_train[hvd.rank()::hvd.size()]
x_test, y_test = x_test[hvd.rank()::hvd.size()], y_test[hvd.rank()::hvd.size()]


def aug(x, y):
    x = tf.image.random_flip_left_right(x)
    x = tf.image.resize_with_crop_or_pad(x, 40, 40)
    x = tf.image.random_crop(x, (32, 32, 3))
    return x, y


train_ds = (tf.data.Dataset.from_tensor_slices((x_train, y_train))
            .shuffle(len(x_train)).map(aug, num_parallel_calls=tf.data.AUTOTUNE)
            .batch(cfg["batch_size"]).prefetch(tf.data.AUTOTUNE))
test_ds = tf.data.Dataset.from_tensor_slices((x_test, y_test)).batch(500)


# ---------------------------------------------------------------- model
def res_block(x, f, stride=1):
    reg = keras.regularizers.l2(cfg["weight_decay"])
    y = keras.layers.Conv2D(f, 3, strides=stride, padding="same", use_bias=False, kernel_regularizer=reg)(x)
    y = keras.layers.BatchNormalization()(y)
    y = keras.layers.ReLU()(y)
    y = keras.layers.Conv2D(f, 3, padding="same", use_bias=False, kernel_regularizer=reg)(y)
    y = keras.layers.BatchNormalization()(y)
    if stride != 1:
        x = keras.layers.Conv2D(f, 1, strides=stride, use_bias=False, kernel_regularizer=reg)(x)
        x = keras.layers.BatchNormalization()(x)
    return keras.layers.ReLU()(keras.layers.Add()([x, y]))


def resnet20():
    inp = keras.Input((32, 32, 3))
    x = keras.layers.Conv2D(16, 3, padding="same", use_bias=False)(inp)
    x = keras.layers.ReLU()(keras.layers.BatchNormalization()(x))
    for f, s in ((16, 1), (32, 2), (64, 2)):
        x = res_block(x, f, s)
        x = res_block(x, f)
        x = res_block(x, f)
    x = keras.layers.GlobalAveragePooling2D()(x)
    return keras.Model(inp, keras.layers.Dense(10, activation="softmax")(x), name="resnet20")


model = resnet20()
opt = keras.optimizers.SGD(learning_rate=cfg["lr"] * hvd.size(), momentum=cfg["momentum"])
opt = hvd.DistributedOptimizer(opt, compression=hvd.Compression.fp16)
model.compile(optimizer=opt, loss="sparse_categorical_crossentropy", metrics=["accuracy"])

callbacks = [
    hvd.callbacks.BroadcastGlobalVariablesCallback(0),
    # ramp up to the target LR over the first epochs (Goyal et al.)
    hvd.callbacks.LearningRateWarmupCallback(initial_lr=cfg["lr"],
                                             warmup_epochs=cfg["warmup_epochs"], verbose=1),
    hvd.callbacks.LearningRateScheduleCallback(initial_lr=cfg["lr"], multiplier=1.0,
                                               start_epoch=cfg["warmup_epochs"], end_epoch=60),
    hvd.callbacks.LearningRateScheduleCallback(initial_lr=cfg["lr"], multiplier=0.1,
                                               start_epoch=60, end_epoch=90),
    hvd.callbacks.LearningRateScheduleCallback(initial_lr=cfg["lr"], multiplier=0.01, start_epoch=90),
]

if hvd.rank() == 0:
    os.makedirs(cfg["ckpt_dir"], exist_ok=True)
    callbacks.append(keras.callbacks.ModelCheckpoint(
        os.path.join(cfg["ckpt_dir"], "resnet20-{epoch:03d}.weights.h5"),
        save_weights_only=True))
    callbacks.append(keras.callbacks.CSVLogger(os.path.join(cfg["ckpt_dir"], "history.csv")))

history = model.fit(train_ds,
                    epochs=cfg["epochs"],
                    validation_data=test_ds,
                    callbacks=callbacks,
                    verbose=1 if hvd.rank() == 0 else 0)

if hvd.rank() == 0:
    print("final val_accuracy: %.4f" % history.history["val_accuracy"][-1], file=sys.stderr)
