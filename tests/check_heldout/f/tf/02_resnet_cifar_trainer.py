#!/usr/bin/env python
# CIFAR-10 ResNet-20 with a custom training loop, mixed precision, Horovod.
# Ported from my single-GPU trainer (cifar_train.py) for the cluster.
import logging
import os
import time

import tensorflow as tf
import horovod.tensorflow as hvd
from tensorflow.keras import layers, mixed_precision

CONFIG = {
    "epochs": 60,
    "batch_size": 128,
    "base_lr": 0.1,
    "momentum": 0.9,
    "weight_decay": 5e-4,
    "warmup_epochs": 5,
    "log_dir": "runs/resnet20",
    "ckpt_dir": "checkpoints/resnet20",
    "mixed_precision": True,
}

logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(message)s")
log = logging.getLogger("cifar")


class BasicBlock(layers.Layer):
    def __init__(self, filters, stride=1):
        super().__init__()
        self.c1 = layers.Conv2D(filters, 3, stride, padding="same", use_bias=False)
        self.b1 = layers.BatchNormalization()
        self.c2 = layers.Conv2D(filters, 3, 1, padding="same", use_bias=False)
        self.b2 = layers.BatchNormalization()
        self.proj = None
        if stride != 1:
            self.proj = layers.Conv2D(filters, 1, stride, use_bias=False)

    def call(self, x, training=False):
        h = tf.nn.relu(self.b1(self.c1(x), training=training))
        h = self.b2(self.c2(h), training=training)
        sc = self.proj(x) if self.proj is not None else x
        return tf.nn.relu(h + sc)


class ResNet20(tf.keras.Model):
    def __init__(self, num_classes=10):
        super().__init__()
        self.stem = layers.Conv2D(16, 3, padding="same", use_bias=False)
        self.bn = layers.BatchNormalization()
        self.blocks = []
        for filters, stride in [(16, 1), (32, 2), (64, 2)]:
            for i in range(3):
                self.blocks.append(BasicBlock(filters, stride if i == 0 else 1))
        self.pool = layers.GlobalAveragePooling2D()
        self.fc = layers.Dense(num_classes, dtype="float32")

    def call(self, x, training=False):
        x = tf.nn.relu(self.bn(self.stem(x), training=training))
        for b in self.blocks:
            x = b(x, training=training)
        return self.fc(self.pool(x))


def augment(img, label):
    img = tf.image.resize_with_crop_or_pad(img, 40, 40)
    img = tf.image.random_crop(img, [32, 32, 3])
    img = tf.image.random_flip_left_right(img)
    return img, label


def load_data(batch_size):
    (xtr, ytr), (xte, yte) = tf.keras.datasets.cifar10.load_data()
    xtr, xte = xtr.astype("float32") / 255.0, xte.astype("float32") / 255.0
    train = (tf.data.Dataset.from_tensor_slices((xtr, ytr[:, 0]))
             .shard(hvd.size(), hvd.rank())
             .shuffle(20000)
             .map(augment, num_parallel_calls=tf.data.AUTOTUNE)
             .batch(batch_size, drop_remainder=True)
             .prefetch(tf.data.AUTOTUNE))
    test = (tf.data.Dataset.from_tensor_slices((xte, yte[:, 0]))
            .shard(hvd.size(), hvd.rank())
            .batch(256))
    steps = (len(xtr) // hvd.size()) // batch_size
    return train, test, steps


class Trainer:
    def __init__(self, cfg):
        self.cfg = cfg
        self.model = ResNet20()
        # make sure all workers start from the same weights
        hvd.broadcast_variables(self.model.variables, root_rank=0)

        self.train_ds, self.test_ds, self.steps_per_epoch = load_data(cfg["batch_size"])
        peak = cfg["base_lr"] * hvd.size()
        warm = cfg["warmup_epochs"] * self.steps_per_epoch
        total = cfg["epochs"] * self.steps_per_epoch
        self.lr_fn = tf.keras.optimizers.schedules.PolynomialDecay(peak, total - warm, peak * 0.01)
        self.warm = warm
        self.peak = peak
        opt = tf.keras.optimizers.SGD(learning_rate=peak, momentum=cfg["momentum"], nesterov=True)
        if cfg["mixed_precision"]:
            opt = mixed_precision.LossScaleOptimizer(opt)
        self.opt = opt
        self.loss_fn = tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True)
        self.train_loss = tf.keras.metrics.Mean()
        self.train_acc = tf.keras.metrics.SparseCategoricalAccuracy()
        self.ckpt = tf.train.Checkpoint(model=self.model, optimizer=self.opt)
        self.manager = tf.train.CheckpointManager(self.ckpt, cfg["ckpt_dir"], max_to_keep=3)
        self.writer = tf.summary.create_file_writer(cfg["log_dir"]) if hvd.rank() == 0 else None

    def lr_at(self, step):
        step = tf.cast(step, tf.float32)
        warm = tf.cast(self.warm, tf.float32)
        return tf.cond(step < warm,
                       lambda: self.peak * (step + 1.0) / warm,
                       lambda: self.lr_fn(step - warm))

    @tf.function
    def train_step(self, x, y, step):
        self.opt.learning_rate.assign(self.lr_at(step))
        with tf.GradientTape() as tape:
            logits = self.model(x, training=True)
            loss = self.loss_fn(y, logits)
            loss += self.cfg["weight_decay"] * tf.add_n(
                [tf.nn.l2_loss(v) for v in self.model.trainable_variables if "kernel" in v.name])
            scaled = self.opt.get_scaled_loss(loss) if self.cfg["mixed_precision"] else loss
        tape = hvd.DistributedGradientTape(tape, compression=hvd.Compression.fp16)
        grads = tape.gradient(scaled, self.model.trainable_variables)
        if self.cfg["mixed_precision"]:
            grads = self.opt.get_unscaled_gradients(grads)
        self.opt.apply_gradients(zip(grads, self.model.trainable_variables))
        self.train_loss.update_state(loss)
        self.train_acc.update_state(y, logits)

    def evaluate(self):
        correct = tf.constant(0.0)
        total = tf.constant(0.0)
        for x, y in self.test_ds:
            pred = tf.argmax(self.model(x, training=False), axis=-1, output_type=tf.int32)
            correct += tf.reduce_sum(tf.cast(tf.equal(pred, tf.cast(y, tf.int32)), tf.float32))
            total += tf.cast(tf.shape(y)[0], tf.float32)
        correct = hvd.allreduce(correct, op=hvd.Sum, name="val_correct")
        total = hvd.allreduce(total, op=hvd.Sum, name="val_total")
        return float(correct / total)

    def fit(self):
        step = 0
        for epoch in range(self.cfg["epochs"]):
            t0 = time.time()
            self.train_loss.reset_states()
            self.train_acc.reset_states()
            for x, y in self.train_ds:
                self.train_step(x, y, tf.constant(step, tf.int64))
                step += 1
            loss = hvd.allreduce(self.train_loss.result(), name="train_loss")
            acc = hvd.allreduce(self.train_acc.result(), name="train_acc")
            val_acc = self.evaluate()
            if hvd.rank() == 0:
                log.info("epoch %d loss %.4f acc %.4f val_acc %.4f lr %.4f time %.1fs",
                         epoch, float(loss), float(acc), val_acc,
                         float(self.opt.learning_rate), time.time() - t0)
                with self.writer.as_default():
                    tf.summary.scalar("train/loss", loss, step=epoch)
                    tf.summary.scalar("train/acc", acc, step=epoch)
                    tf.summary.scalar("val/acc", val_acc, step=epoch)
                self.manager.save(checkpoint_number=epoch)


def main():
    hvd.init()
    gpus = tf.config.list_physical_devices("GPU")
    for g in gpus:
        tf.config.experimental.set_memory_growth(g, True)
    if gpus:
        tf.config.set_visible_devices(gpus[hvd.rank()], "GPU")
    if CONFIG["mixed_precision"]:
        mixed_precision.set_global_policy("mixed_float16")
    if hvd.rank() == 0:
        log.info("running on %d workers", hvd.size())
    Trainer(CONFIG).fit()


if __name__ == "__main__":
    main()
