"""CIFAR-100 WideResNet-ish training, TF2 custom loop, mixed precision + Horovod.

Run:  horovodrun -np 4 -H localhost:4 python 02_cifar100_amp_tape.py --epochs 60
"""
import argparse
import logging
import os
import time

import numpy as np
import tensorflow as tf
from tensorflow.keras import layers, mixed_precision
import horovod.tensorflow as hvd

logging.basicConfig(format="%(asctime)s %(levelname)s %(message)s", level=logging.INFO)
log = logging.getLogger("c100amp")


def get_args():
    ap = argparse.ArgumentParser()
    ap.add_argument("--epochs", type=int, default=60)
    ap.add_argument("--batch-size", type=int, default=128)
    ap.add_argument("--base-lr", type=float, default=0.05)
    ap.add_argument("--wd", type=float, default=5e-4)
    ap.add_argument("--out", default="runs/c100_amp")
    return ap.parse_args()


def setup_devices():
    hvd.init()
    gpus = tf.config.list_physical_devices("GPU")
    for g in gpus:
        tf.config.experimental.set_memory_growth(g, True)
    if gpus:
        tf.config.set_visible_devices(gpus[hvd.local_rank()], "GPU")
    mixed_precision.set_global_policy("mixed_float16")
    if hvd.rank() != 0:
        log.setLevel(logging.WARNING)


MEAN = np.array([0.5071, 0.4865, 0.4409], np.float32)
STD = np.array([0.2673, 0.2564, 0.2762], np.float32)


def augment(img, label):
    img = tf.image.resize_with_crop_or_pad(img, 40, 40)
    img = tf.image.random_crop(img, [32, 32, 3])
    img = tf.image.random_flip_left_right(img)
    return img, label


def make_datasets(bs):
    (x_tr, y_tr), (x_te, y_te) = tf.keras.datasets.cifar100.load_data()
    x_tr = ((x_tr / 255.0 - MEAN) / STD).astype(np.float32)
    x_te = ((x_te / 255.0 - MEAN) / STD).astype(np.float32)
    train = (tf.data.Dataset.from_tensor_slices((x_tr, y_tr[:, 0]))
             .shard(hvd.size(), hvd.rank())
             .shuffle(10000)
             .map(augment, num_parallel_calls=tf.data.AUTOTUNE)
             .batch(bs, drop_remainder=True)
             .prefetch(tf.data.AUTOTUNE))
    test = (tf.data.Dataset.from_tensor_slices((x_te, y_te[:, 0]))
            .shard(hvd.size(), hvd.rank())
            .batch(500))
    steps = (len(x_tr) // hvd.size()) // bs
    return train, test, steps


def conv_bn(x, f, stride=1):
    x = layers.Conv2D(f, 3, strides=stride, padding="same", use_bias=False)(x)
    x = layers.BatchNormalization()(x)
    return layers.ReLU()(x)


def build_model(width=4, n_classes=100):
    inp = tf.keras.Input((32, 32, 3))
    x = conv_bn(inp, 16)
    for i, f in enumerate([16 * width, 32 * width, 64 * width]):
        stride = 1 if i == 0 else 2
        sc = layers.Conv2D(f, 1, strides=stride, use_bias=False)(x)
        x = conv_bn(x, f, stride)
        x = conv_bn(x, f)
        x = layers.Add()([x, sc])
    x = layers.GlobalAveragePooling2D()(x)
    x = layers.Dropout(0.3)(x)
    # keep the softmax in float32 for numerical stability
    out = layers.Dense(n_classes, activation="softmax", dtype="float32")(x)
    return tf.keras.Model(inp, out)


def main():
    args = get_args()
    setup_devices()
    train_ds, test_ds, steps = make_datasets(args.batch_size)

    model = build_model()
    hvd.broadcast_variables(model.variables, root_rank=0)

    lr0 = args.base_lr * hvd.size()
    bounds = [int(steps * e) for e in (20, 40, 50)]
    sched = tf.keras.optimizers.schedules.PiecewiseConstantDecay(bounds, [lr0, lr0 * 0.2, lr0 * 0.04, lr0 * 0.008])
    opt = tf.keras.optimizers.SGD(learning_rate=sched, momentum=0.9, nesterov=True)
    opt = mixed_precision.LossScaleOptimizer(opt)

    loss_fn = tf.keras.losses.SparseCategoricalCrossentropy()
    train_acc = tf.keras.metrics.SparseCategoricalAccuracy()
    train_loss = tf.keras.metrics.Mean()

    @tf.function
    def train_step(images, labels):
        with tf.GradientTape() as tape:
            probs = model(images, training=True)
            loss = loss_fn(labels, probs) + args.wd * tf.add_n(
                [tf.nn.l2_loss(v) for v in model.trainable_variables if "kernel" in v.name])
            scaled_loss = opt.get_scaled_loss(loss)
        dist_tape = hvd.DistributedGradientTape(tape, compression=hvd.Compression.fp16)
        scaled_grads = tape.gradient(scaled_loss, model.trainable_variables)
        grads = opt.get_unscaled_gradients(scaled_grads)
        opt.apply_gradients(zip(grads, model.trainable_variables))
        train_loss.update_state(loss)
        train_acc.update_state(labels, probs)

    @tf.function
    def eval_step(images, labels):
        probs = model(images, training=False)
        pred = tf.argmax(probs, axis=1, output_type=tf.int32)
        return tf.reduce_sum(tf.cast(tf.equal(pred, tf.cast(labels, tf.int32)), tf.float32)), tf.cast(tf.shape(labels)[0], tf.float32)

    os.makedirs(args.out, exist_ok=True)
    best = 0.0
    for epoch in range(args.epochs):
        t0 = time.time()
        train_loss.reset_state()
        train_acc.reset_state()
        for images, labels in train_ds.take(steps):
            train_step(images, labels)

        correct, count = 0.0, 0.0
        for images, labels in test_ds:
            c, n = eval_step(images, labels)
            correct += c
            count += n
        correct = hvd.allreduce(correct, op=hvd.Sum)
        count = hvd.allreduce(count, op=hvd.Sum)
        test_acc = float(correct / count)
        tl = float(hvd.allreduce(train_loss.result()))
        ta = float(hvd.allreduce(train_acc.result()))

        log.info("epoch %d loss %.4f acc %.4f test_acc %.4f scale %.0f (%.0fs)",
                 epoch, tl, ta, test_acc, float(opt.loss_scale), time.time() - t0)
        if hvd.rank() == 0 and test_acc > best:
            best = test_acc
            model.save_weights(os.path.join(args.out, "best.weights.h5"))


if __name__ == "__main__":
    main()
