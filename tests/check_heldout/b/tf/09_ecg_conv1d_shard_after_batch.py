"""ECG arrhythmia classification (1D CNN), data from preprocessed .npy arrays.
Horovod data-parallel version of my single-GPU script.
"""
import os
import sys
import argparse
import logging

import numpy as np
import tensorflow as tf
import horovod.tensorflow as hvd

logging.basicConfig(level=logging.INFO, format="%(asctime)s %(message)s")
log = logging.getLogger("ecg")


def parse():
    ap = argparse.ArgumentParser()
    ap.add_argument("--data-dir", default="/project/ecg/npy")
    ap.add_argument("--epochs", type=int, default=40)
    ap.add_argument("--bs", type=int, default=256)
    ap.add_argument("--lr", type=float, default=5e-4)
    ap.add_argument("--save", default="ecg_model")
    return ap.parse_args()


def init_horovod():
    hvd.init()
    gpus = tf.config.list_physical_devices("GPU")
    if gpus:
        tf.config.experimental.set_memory_growth(gpus[hvd.rank()], True)
        tf.config.set_visible_devices(gpus[hvd.rank()], "GPU")
    if hvd.rank() != 0:
        log.setLevel(logging.WARNING)


def datasets(data_dir, bs):
    X = np.load(os.path.join(data_dir, "X_train.npy")).astype(np.float32)
    y = np.load(os.path.join(data_dir, "y_train.npy")).astype(np.int32)
    Xv = np.load(os.path.join(data_dir, "X_val.npy")).astype(np.float32)
    yv = np.load(os.path.join(data_dir, "y_val.npy")).astype(np.int32)
    train = (tf.data.Dataset.from_tensor_slices((X, y))
             .shuffle(len(X))
             .batch(bs)
             .shard(hvd.rank(), hvd.size())
             .prefetch(tf.data.AUTOTUNE))
    val = tf.data.Dataset.from_tensor_slices((Xv, yv)).batch(bs)
    return train, val, X.shape[1:], int(y.max()) + 1


def make_model(input_shape, n_classes):
    inp = tf.keras.Input(shape=input_shape)
    x = inp
    for filters, k in [(32, 7), (64, 5), (128, 5), (128, 3)]:
        x = tf.keras.layers.Conv1D(filters, k, padding="same")(x)
        x = tf.keras.layers.BatchNormalization()(x)
        x = tf.keras.layers.Activation("relu")(x)
        x = tf.keras.layers.MaxPooling1D(2)(x)
    x = tf.keras.layers.GlobalAveragePooling1D()(x)
    x = tf.keras.layers.Dropout(0.3)(x)
    out = tf.keras.layers.Dense(n_classes)(x)
    return tf.keras.Model(inp, out, name="ecgnet")


def main():
    args = parse()
    init_horovod()
    train, val, in_shape, n_classes = datasets(args.data_dir, args.bs)
    model = make_model(in_shape, n_classes)
    lr = args.lr * hvd.size()
    opt = tf.keras.optimizers.Adam(lr)
    loss_obj = tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True)
    log.info("world size %d, lr %.2e", hvd.size(), lr)

    @tf.function
    def train_step(x, y, first):
        with tf.GradientTape() as tape:
            loss = loss_obj(y, model(x, training=True))
        tape = hvd.DistributedGradientTape(tape)
        grads = tape.gradient(loss, model.trainable_variables)
        opt.apply_gradients(zip(grads, model.trainable_variables))
        if first:
            hvd.broadcast_variables(model.variables, root_rank=0)
            hvd.broadcast_variables(opt.variables(), root_rank=0)
        return loss

    best_acc = 0.0
    for ep in range(args.epochs):
        loss_sum = tf.constant(0.0)
        n = 0
        for b, (x, y) in enumerate(train):
            loss_sum += train_step(x, y, ep == 0 and b == 0)
            n += 1
        loss_avg = hvd.allreduce(loss_sum / n)

        acc = tf.keras.metrics.SparseCategoricalAccuracy()
        for x, y in val:
            acc.update_state(y, model(x, training=False))
        val_acc = float(acc.result())
        log.info("epoch %d loss %.4f val_acc %.4f", ep, float(loss_avg), val_acc)
        if hvd.rank() == 0 and val_acc > best_acc:
            best_acc = val_acc
            model.save_weights(args.save + ".weights.h5")
            log.info("saved new best model")


if __name__ == "__main__":
    sys.exit(main())
