"""VDSR (Kim et al. 2016) in TF2 with a custom loop, data-parallel with Horovod.

Multi-scale training (x2/x3/x4 mixed in one batch), residual learning, gradient clipping.
"""
import argparse
import glob
import os
import random

import horovod.tensorflow as hvd
import numpy as np
import tensorflow as tf
from PIL import Image

FLAGS = None


def build_vdsr(depth=20, nf=64):
    inp = tf.keras.Input((None, None, 1))
    x = inp
    for _ in range(depth - 1):
        x = tf.keras.layers.Conv2D(nf, 3, padding="same", activation="relu",
                                   kernel_initializer="he_normal")(x)
    res = tf.keras.layers.Conv2D(1, 3, padding="same", kernel_initializer="he_normal")(x)
    return tf.keras.Model(inp, tf.keras.layers.Add()([inp, res]))


def y_channel(img):
    arr = np.asarray(img.convert("YCbCr"), np.float32)[..., 0] / 255.0
    return arr


def bicubic_pair(y, scale):
    h, w = y.shape[0] // scale * scale, y.shape[1] // scale * scale
    hr = Image.fromarray(y[:h, :w])
    lr = hr.resize((w // scale, h // scale), Image.BICUBIC).resize((w, h), Image.BICUBIC)
    return np.asarray(lr, np.float32), np.asarray(hr, np.float32)


class PatchSampler:
    """Crops random 41x41 patches from the images this worker owns."""

    def __init__(self, files, patch, batch):
        self.images = [y_channel(Image.open(f)) for f in files]
        self.patch, self.batch = patch, batch

    def __call__(self):
        lrs, hrs = [], []
        for _ in range(self.batch):
            img = random.choice(self.images)
            scale = random.choice((2, 3, 4))
            i = random.randint(0, img.shape[0] - self.patch)
            j = random.randint(0, img.shape[1] - self.patch)
            lr, hr = bicubic_pair(img[i:i + self.patch, j:j + self.patch], scale)
            lrs.append(lr[:self.patch - self.patch % 12, :self.patch - self.patch % 12])
            hrs.append(hr[:self.patch - self.patch % 12, :self.patch - self.patch % 12])
        return np.stack(lrs)[..., None], np.stack(hrs)[..., None]


def main():
    hvd.init()
    gpus = tf.config.list_physical_devices("GPU")
    for gpu in gpus:
        tf.config.experimental.set_memory_growth(gpu, True)
    if gpus:
        tf.config.set_visible_devices(gpus[hvd.local_rank()], "GPU")

    files = sorted(glob.glob(os.path.join(FLAGS.train_dir, "*")))
    per_worker = len(files) // hvd.size()
    mine = files[hvd.rank() * per_worker:(hvd.rank() + 1) * per_worker]
    sampler = PatchSampler(mine, FLAGS.patch, FLAGS.batch_size)

    model = build_vdsr()
    lr_schedule = tf.keras.optimizers.schedules.ExponentialDecay(FLAGS.lr, FLAGS.decay_steps, 0.1,
                                                                 staircase=True)
    optimizer = tf.keras.optimizers.SGD(lr_schedule, momentum=0.9)
    ckpt = tf.train.Checkpoint(model=model, optimizer=optimizer, step=tf.Variable(0, dtype=tf.int64))
    manager = tf.train.CheckpointManager(ckpt, FLAGS.ckpt_dir, max_to_keep=5)
    if manager.latest_checkpoint:
        ckpt.restore(manager.latest_checkpoint)

    @tf.function
    def train_step(lr, hr, first_batch):
        with tf.GradientTape() as tape:
            loss = tf.reduce_mean(tf.square(model(lr, training=True) - hr)) / 2.0
        tape = hvd.DistributedGradientTape(tape)
        grads = tape.gradient(loss, model.trainable_variables)
        grads, _ = tf.clip_by_global_norm(grads, FLAGS.clip)
        optimizer.apply_gradients(zip(grads, model.trainable_variables))
        if first_batch:
            hvd.broadcast_variables(model.variables, root_rank=0)
            hvd.broadcast_variables(optimizer.variables, root_rank=0)
            hvd.broadcast_variables([ckpt.step], root_rank=0)
        return loss

    val = [bicubic_pair(y_channel(Image.open(f)), 4) for f in sorted(glob.glob(os.path.join(FLAGS.val_dir, "*")))]
    first = True
    while int(ckpt.step) < FLAGS.steps:
        lr, hr = sampler()
        loss = train_step(lr, hr, first)
        first = False
        ckpt.step.assign_add(1)
        step = int(ckpt.step)
        if step % FLAGS.eval_every == 0:
            psnr = np.mean([float(tf.image.psnr(tf.clip_by_value(model(l[None, ..., None]), 0, 1),
                                                h[None, ..., None], 1.0)[0]) for l, h in val])
            if hvd.rank() == 0:
                print(f"step {step} loss {float(loss):.5f}  Set5 x4 PSNR(Y) {psnr:.2f}")
                manager.save(checkpoint_number=step)


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--train_dir", default="data/291")
    parser.add_argument("--val_dir", default="data/Set5")
    parser.add_argument("--patch", type=int, default=41)
    parser.add_argument("--batch_size", type=int, default=64)
    parser.add_argument("--lr", type=float, default=0.1)
    parser.add_argument("--decay_steps", type=int, default=20000)
    parser.add_argument("--clip", type=float, default=0.4)
    parser.add_argument("--steps", type=int, default=80000)
    parser.add_argument("--eval_every", type=int, default=1000)
    parser.add_argument("--ckpt_dir", default="ckpt/vdsr")
    FLAGS = parser.parse_args()
    main()
