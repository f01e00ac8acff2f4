"""Keyword spotting (Speech Commands v2, 35 words) on log-mel features, Horovod + GradientTape.

    horovodrun -np 4 python train.py --features data/speech_commands_logmel.npz
"""
import argparse
import math
import os

import numpy as np
import tensorflow as tf
import horovod.tensorflow as hvd


def parse_args():
    p = argparse.ArgumentParser()
    p.add_argument("--features", default="data/speech_commands_logmel.npz")
    p.add_argument("--ckpt-dir", default="ckpt/kws_dscnn")
    p.add_argument("--epochs", type=int, default=40)
    p.add_argument("--batch-size", type=int, default=100)
    p.add_argument("--base-lr", type=float, default=1e-3)
    p.add_argument("--warmup-steps", type=int, default=500)
    p.add_argument("--spec-augment", action="store_true", default=True)
    return p.parse_args()


class DSCNN(tf.keras.Model):
    """Depthwise-separable CNN (Zhang et al., Hello Edge), 'S' size."""

    def __init__(self, n_classes, width=64, blocks=4):
        super().__init__()
        self.stem = tf.keras.Sequential([
            tf.keras.layers.Conv2D(width, (10, 4), strides=(2, 2), padding="same", use_bias=False),
            tf.keras.layers.BatchNormalization(), tf.keras.layers.ReLU()])
        self.blocks = []
        for _ in range(blocks):
            self.blocks.append(tf.keras.Sequential([
                tf.keras.layers.DepthwiseConv2D(3, padding="same", use_bias=False),
                tf.keras.layers.BatchNormalization(), tf.keras.layers.ReLU(),
                tf.keras.layers.Conv2D(width, 1, use_bias=False),
                tf.keras.layers.BatchNormalization(), tf.keras.layers.ReLU()]))
        self.pool = tf.keras.layers.GlobalAveragePooling2D()
        self.drop = tf.keras.layers.Dropout(0.2)
        self.fc = tf.keras.layers.Dense(n_classes)

    def call(self, x, training=False):
        x = self.stem(x, training=training)
        for b in self.blocks:
            x = b(x, training=training)
        return self.fc(self.drop(self.pool(x), training=training))


def spec_augment(x, y):
    # one time mask and one frequency mask per example
    t, f = tf.shape(x)[0], tf.shape(x)[1]
    t0 = tf.random.uniform([], 0, t - 10, dtype=tf.int32)
    f0 = tf.random.uniform([], 0, f - 8, dtype=tf.int32)
    tmask = tf.concat([tf.ones([t0, f]), tf.zeros([10, f]), tf.ones([t - t0 - 10, f])], 0)
    fmask = tf.concat([tf.ones([t, f0]), tf.zeros([t, 8]), tf.ones([t, f - f0 - 8])], 1)
    return x * (tmask * fmask)[..., None], y


def main():
    args = parse_args()
    hvd.init()
    gpus = tf.config.list_physical_devices("GPU")
    for g in gpus:
        tf.config.experimental.set_memory_growth(g, True)
    if gpus:
        tf.config.set_visible_devices(gpus[hvd.local_rank()], "GPU")

    d = np.load(args.features)
    x_tr, y_tr = d["x_train"][..., None].astype("float32"), d["y_train"].astype("int64")
    x_va, y_va = d["x_val"][..., None].astype("float32"), d["y_val"].astype("int64")
    n_classes = int(y_tr.max()) + 1

    train = tf.data.Dataset.from_tensor_slices((x_tr, y_tr))
    train = train.shuffle(len(x_tr), reshuffle_each_iteration=True).shard(hvd.size(), hvd.rank())
    if args.spec_augment:
        train = train.map(spec_augment, num_parallel_calls=tf.data.AUTOTUNE)
    train = train.batch(args.batch_size, drop_remainder=True).prefetch(tf.data.AUTOTUNE)
    val = tf.data.Dataset.from_tensor_slices((x_va, y_va)).shard(hvd.size(), hvd.rank()).batch(500)
    steps_per_epoch = len(x_tr) // hvd.size() // args.batch_size

    model = DSCNN(n_classes)
    peak_lr = args.base_lr * hvd.size()
    opt = tf.keras.optimizers.Adam(learning_rate=peak_lr)
    loss_fn = tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True)
    hvd.broadcast_variables(model.variables, root_rank=0)

    @tf.function
    def train_step(x, y):
        with tf.GradientTape() as tape:
            loss = loss_fn(y, model(x, training=True))
        tape = hvd.DistributedGradientTape(tape)
        grads = tape.gradient(loss, model.trainable_variables)
        opt.apply_gradients(zip(grads, model.trainable_variables))
        return loss

    @tf.function
    def eval_step(x, y):
        logits = model(x, training=False)
        hits = tf.reduce_sum(tf.cast(tf.equal(tf.argmax(logits, 1), y), tf.float32))
        return tf.stack([hits, tf.cast(tf.size(y), tf.float32)])

    ckpt = tf.train.Checkpoint(model=model, optimizer=opt)
    best, global_step = 0.0, 0
    for epoch in range(args.epochs):
        for x, y in train.take(steps_per_epoch):
            opt.learning_rate.assign(peak_lr * min(1.0, (global_step + 1) / args.warmup_steps)
                                     * 0.5 * (1 + math.cos(math.pi * global_step / (args.epochs * steps_per_epoch))))
            train_step(x, y)
            global_step += 1

        counts = tf.zeros(2)
        for x, y in val:
            counts += eval_step(x, y)
        counts = hvd.allreduce(counts, op=hvd.Sum, name="val_counts")
        acc = float(counts[0] / counts[1])
        if hvd.rank() == 0:
            print(f"epoch {epoch + 1}/{args.epochs}  val_acc {acc:.4f}  lr {float(opt.learning_rate):.2e}")
            if acc > best:
                best = acc
                ckpt.write(os.path.join(args.ckpt_dir, "best"))


if __name__ == "__main__":
    main()
