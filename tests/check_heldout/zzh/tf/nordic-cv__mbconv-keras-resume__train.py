"""
Train a small MBConv network on 96x96 crops (numpy shards) with horovod.tensorflow.keras.

* effective batch = batch_size * accum * workers (gradients are accumulated locally
  for `accum` batches before Horovod averages them)
* restartable: the newest epoch_XXX.weights.h5 in --out is picked up automatically
"""
import argparse
import glob
import os
import re

import numpy as np
import tensorflow as tf
import keras
from keras import layers
import horovod.tensorflow.keras as hvd


def mbconv(x, filters, expand=4, stride=1):
    c_in = x.shape[-1]
    h = layers.Conv2D(c_in * expand, 1, use_bias=False)(x)
    h = layers.Activation("swish")(layers.BatchNormalization()(h))
    h = layers.DepthwiseConv2D(3, strides=stride, padding="same", use_bias=False)(h)
    h = layers.Activation("swish")(layers.BatchNormalization()(h))
    h = layers.BatchNormalization()(layers.Conv2D(filters, 1, use_bias=False)(h))
    if stride == 1 and c_in == filters:
        h = layers.Add()([x, h])
    return h


def build_model(num_classes, size=96, width=(24, 40, 80, 112)):
    inp = keras.Input((size, size, 3))
    x = layers.Rescaling(1 / 127.5, offset=-1)(inp)
    x = layers.Conv2D(width[0], 3, strides=2, padding="same", activation="swish")(x)
    for w in width:
        x = mbconv(x, w, stride=2)
        x = mbconv(x, w)
    x = layers.GlobalAveragePooling2D()(x)
    return keras.Model(inp, layers.Dense(num_classes, activation="softmax")(layers.Dropout(0.2)(x)))


def latest_weights(out_dir):
    best, best_epoch = None, 0
    for path in glob.glob(os.path.join(out_dir, "epoch_*.weights.h5")):
        epoch = int(re.search(r"epoch_(\d+)", path).group(1))
        if epoch > best_epoch:
            best, best_epoch = path, epoch
    return best, best_epoch


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--train", default="data/train_96.npz")
    ap.add_argument("--val", default="data/val_96.npz")
    ap.add_argument("--out", default="runs/mbconv")
    ap.add_argument("--batch-size", type=int, default=64)
    ap.add_argument("--accum", type=int, default=2)
    ap.add_argument("--base-lr", type=float, default=0.01)
    ap.add_argument("--epochs", type=int, default=60)
    ap.add_argument("--warmup", type=int, default=5)
    args = ap.parse_args()

    hvd.init()
    gpus = tf.config.experimental.list_physical_devices("GPU")
    for gpu in gpus:
        tf.config.experimental.set_memory_growth(gpu, True)
    if gpus:
        tf.config.experimental.set_visible_devices(gpus[hvd.local_rank()], "GPU")

    train = np.load(args.train)
    val = np.load(args.val)
    # strided slice of the arrays for this worker (train and val); the same number of
    # training samples everywhere so that every worker runs the same number of steps
    per_worker = len(train["y"]) // hvd.size()
    x_tr = train["x"][hvd.rank()::hvd.size()][:per_worker]
    y_tr = train["y"][hvd.rank()::hvd.size()][:per_worker]
    x_va, y_va = val["x"][hvd.rank()::hvd.size()], val["y"][hvd.rank()::hvd.size()]
    num_classes = int(train["y"].max()) + 1

    model = build_model(num_classes)
    lr = args.base_lr * hvd.size()
    opt = keras.optimizers.SGD(learning_rate=lr, momentum=0.9, nesterov=True)
    opt = hvd.DistributedOptimizer(opt, backward_passes_per_step=args.accum,
                                   average_aggregated_gradients=True,
                                   compression=hvd.Compression.fp16)
    model.compile(optimizer=opt, loss="sparse_categorical_crossentropy", metrics=["accuracy"])

    resume_from, initial_epoch = latest_weights(args.out)
    if resume_from:
        # every worker reads the same file; the broadcast below keeps them identical anyway
        model.load_weights(resume_from)

    callbacks = [
        hvd.callbacks.BroadcastGlobalVariablesCallback(0),
        hvd.callbacks.MetricAverageCallback(),
        hvd.callbacks.LearningRateWarmupCallback(initial_lr=lr, warmup_epochs=args.warmup,
                                                 verbose=1 if hvd.rank() == 0 else 0),
        keras.callbacks.ReduceLROnPlateau(patience=4, factor=0.3, verbose=0),
    ]
    if hvd.rank() == 0:
        os.makedirs(args.out, exist_ok=True)
        callbacks.append(keras.callbacks.ModelCheckpoint(os.path.join(args.out, "epoch_{epoch:03d}.weights.h5"),
                                                         save_weights_only=True))
        print(f"{hvd.size()} workers, {len(x_tr)} samples each, resume={resume_from}", flush=True)

    model.fit(x_tr, y_tr, batch_size=args.batch_size, epochs=args.epochs, initial_epoch=initial_epoch,
              validation_data=(x_va, y_va), callbacks=callbacks, verbose=2 if hvd.rank() == 0 else 0)


if __name__ == "__main__":
    main()
