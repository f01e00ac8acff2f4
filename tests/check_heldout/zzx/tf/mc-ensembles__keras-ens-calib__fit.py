# Multi-head ("one-run") ensemble on CIFAR-10 with Keras 3 + Horovod.
# Each head has its own classifier on a shared trunk; the ensemble prediction is the mean of
# the heads' softmax. After training we report accuracy, NLL, Brier score and ECE.
import argparse
import os

import numpy as np
import tensorflow as tf
import keras
from keras import layers
import horovod.tensorflow.keras as hvd

hvd.init()
gpus = tf.config.experimental.list_physical_devices("GPU")
for g in gpus:
    tf.config.experimental.set_memory_growth(g, True)
if gpus:
    tf.config.experimental.set_visible_devices(gpus[hvd.local_rank()], "GPU")

ap = argparse.ArgumentParser()
ap.add_argument("--heads", type=int, default=4)
ap.add_argument("--epochs", type=int, default=60)
ap.add_argument("--batch", type=int, default=64)
ap.add_argument("--lr", type=float, default=0.01)
ap.add_argument("--logdir", default="logs/mhe")
args = ap.parse_args()

(x_train, y_train), (x_test, y_test) = keras.datasets.cifar10.load_data()
x_train, x_test = x_train.astype("float32") / 255.0, x_test.astype("float32") / 255.0
y_train, y_test = y_train.ravel(), y_test.ravel()

# hold out 5k training images for validation / early stopping
rng = np.random.RandomState(7)
perm = rng.permutation(len(x_train))
x_val, y_val = x_train[perm[:5000]], y_train[perm[:5000]]
x_train, y_train = x_train[perm[5000:]], y_train[perm[5000:]]

# every worker gets its own slice of train and val
x_train, y_train = x_train[hvd.rank()::hvd.size()], y_train[hvd.rank()::hvd.size()]
x_val, y_val = x_val[hvd.rank()::hvd.size()], y_val[hvd.rank()::hvd.size()]
steps_per_epoch = 45000 // (args.batch * hvd.size())


def trunk(x):
    for f in (64, 128, 256):
        x = layers.Conv2D(f, 3, padding="same", use_bias=False)(x)
        x = layers.BatchNormalization()(x)
        x = layers.Activation("relu")(x)
        x = layers.Conv2D(f, 3, padding="same", use_bias=False)(x)
        x = layers.BatchNormalization()(x)
        x = layers.Activation("relu")(x)
        x = layers.MaxPooling2D()(x)
    return layers.GlobalAveragePooling2D()(x)


inp = keras.Input((32, 32, 3))
aug = layers.RandomFlip("horizontal")(inp)
aug = layers.RandomTranslation(0.1, 0.1)(aug)
feat = trunk(aug)
heads = [layers.Dense(10, activation="softmax", name=f"head{i}")(layers.Dropout(0.2)(feat))
         for i in range(args.heads)]
model = keras.Model(inp, heads)

opt = keras.optimizers.SGD(learning_rate=args.lr * hvd.size(), momentum=0.9, nesterov=True)
opt = hvd.DistributedOptimizer(opt)
model.compile(optimizer=opt,
              loss=["sparse_categorical_crossentropy"] * args.heads,
              metrics=[["accuracy"] for _ in range(args.heads)])

callbacks = [
    hvd.callbacks.LearningRateWarmupCallback(warmup_epochs=5, verbose=1),
    keras.callbacks.ReduceLROnPlateau(monitor="val_loss", factor=0.2, patience=6, min_lr=1e-5),
]
if hvd.rank() == 0:
    os.makedirs(args.logdir, exist_ok=True)
    callbacks += [
        hvd.callbacks.BroadcastGlobalVariablesCallback(0),
        keras.callbacks.ModelCheckpoint(os.path.join(args.logdir, "best.keras"), monitor="val_loss",
                                        save_best_only=True),
        keras.callbacks.TensorBoard(args.logdir),
    ]

model.fit(x_train, [y_train] * args.heads,
          batch_size=args.batch,
          steps_per_epoch=steps_per_epoch,
          epochs=args.epochs,
          validation_data=(x_val, [y_val] * args.heads),
          callbacks=callbacks,
          verbose=1 if hvd.rank() == 0 else 0)


def calibration_report(probs, labels, n_bins=15):
    conf, pred = probs.max(1), probs.argmax(1)
    acc = (pred == labels).astype(np.float64)
    edges = np.linspace(0, 1, n_bins + 1)
    ece = sum(np.abs(acc[(conf > lo) & (conf <= hi)].mean() - conf[(conf > lo) & (conf <= hi)].mean())
              * ((conf > lo) & (conf <= hi)).mean()
              for lo, hi in zip(edges[:-1], edges[1:]) if ((conf > lo) & (conf <= hi)).any())
    nll = -np.log(np.clip(probs[np.arange(len(labels)), labels], 1e-12, 1)).mean()
    brier = ((probs - np.eye(10)[labels]) ** 2).sum(1).mean()
    return dict(acc=acc.mean(), nll=nll, brier=brier, ece=ece)


if hvd.rank() == 0:
    head_probs = model.predict(x_test, batch_size=500, verbose=0)
    ens = np.mean(np.stack(head_probs), axis=0)
    print("ensemble:", calibration_report(ens, y_test))
    for i, p in enumerate(head_probs):
        print(f"head {i}:", calibration_report(p, y_test))
