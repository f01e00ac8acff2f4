"""Radar nowcasting (t+10 min) with a custom GradientTape loop and Horovod.

    horovodrun -np 8 python train/nowcast_tape.py --data /lake/radar/nowcast_2023.npz
"""
import argparse
import dataclasses
import os
import time

import horovod.tensorflow as hvd
import keras
import numpy as np
import tensorflow as tf


@dataclasses.dataclass
class TrainConfig:
    data: str = "/lake/radar/nowcast_latest.npz"
    ckpt_dir: str = "/lake/experiments/nowcast/ckpt"
    past_frames: int = 4
    batch_size: int = 16            # per worker
    base_lr: float = 3e-4           # one worker
    epochs: int = 30
    decay_epochs: tuple = (20, 26)
    seed: int = 5


def parse_config():
    cfg = TrainConfig()
    ap = argparse.ArgumentParser()
    ap.add_argument("--data", default=cfg.data)
    ap.add_argument("--ckpt-dir", default=cfg.ckpt_dir)
    ap.add_argument("--epochs", type=int, default=cfg.epochs)
    ap.add_argument("--batch-size", type=int, default=cfg.batch_size)
    return dataclasses.replace(cfg, **vars(ap.parse_args()))


def make_data(cfg):
    blob = np.load(cfg.data)
    frames = blob["frames"].astype("float32") / 70.0          # dBZ -> ~[0, 1]
    x, y = frames[:, :cfg.past_frames], frames[:, cfg.past_frames]
    x = np.transpose(x, (0, 2, 3, 1))
    y = y[..., None]
    n_val = len(x) // 8
    per_worker = cfg.batch_size * hvd.size()
    train = (tf.data.Dataset.from_tensor_slices((x[n_val:], y[n_val:])).shard(hvd.size(), hvd.rank())
             .shuffle(2048, seed=cfg.seed).batch(cfg.batch_size, drop_remainder=True)
             .take((len(x) - n_val) // per_worker))
    val = (tf.data.Dataset.from_tensor_slices((x[:n_val], y[:n_val])).shard(hvd.size(), hvd.rank())
           .batch(cfg.batch_size, drop_remainder=True).take(n_val // per_worker))
    return train, val, (len(x) - n_val) // per_worker


def build_net(past_frames):
    inp = keras.Input((None, None, past_frames))
    x = keras.layers.Conv2D(32, 3, padding="same", activation="relu")(inp)
    x = keras.layers.Conv2D(32, 3, padding="same", activation="relu")(x)
    x = keras.layers.Conv2D(32, 3, padding="same", activation="relu", dilation_rate=2)(x)
    return keras.Model(inp, keras.layers.Conv2D(1, 1, activation="relu")(x))


class NowcastTrainer:
    def __init__(self, cfg, steps_per_epoch):
        self.cfg = cfg
        self.model = build_net(cfg.past_frames)
        peak = cfg.base_lr * hvd.size()
        boundaries = [e * steps_per_epoch for e in cfg.decay_epochs]
        schedule = keras.optimizers.schedules.PiecewiseConstantDecay(boundaries, [peak, peak * 0.1, peak * 0.01])
        self.opt = keras.optimizers.Adam(learning_rate=schedule)
        self.ckpt = tf.train.Checkpoint(model=self.model, opt=self.opt, epoch=tf.Variable(0))
        self.manager = tf.train.CheckpointManager(self.ckpt, cfg.ckpt_dir, max_to_keep=2)

    @tf.function
    def train_step(self, x, y, first_batch):
        with tf.GradientTape() as tape:
            loss = tf.reduce_mean(tf.abs(self.model(x, training=True) - y))
        tape = hvd.DistributedGradientTape(tape, compression=hvd.Compression.fp16)
        grads = tape.gradient(loss, self.model.trainable_variables)
        self.opt.apply_gradients(zip(grads, self.model.trainable_variables))
        if first_batch:
            hvd.broadcast_variables(self.model.variables, root_rank=0)
            hvd.broadcast_variables(self.opt.variables, root_rank=0)
        return loss

    @tf.function
    def eval_step(self, x, y):
        return tf.reduce_mean(tf.abs(self.model(x, training=False) - y))

    def restore(self):
        # the checkpoint directory is on the shared filesystem: every worker restores the same state
        if self.manager.latest_checkpoint:
            self.ckpt.restore(self.manager.latest_checkpoint)
        return int(self.ckpt.epoch.numpy())

    def validate(self, val):
        maes = [self.eval_step(x, y) for x, y in val]
        local = tf.reduce_mean(tf.stack(maes))
        # equal number of equal-size batches per worker, so the mean of worker means is the global mean
        return hvd.allreduce(local, name="val_mae")


def main():
    cfg = parse_config()
    hvd.init()
    gpus = tf.config.experimental.list_physical_devices("GPU")
    for gpu in gpus:
        tf.config.experimental.set_memory_growth(gpu, True)
    if gpus:
        tf.config.experimental.set_visible_devices(gpus[hvd.local_rank()], "GPU")

    train, val, steps_per_epoch = make_data(cfg)
    trainer = NowcastTrainer(cfg, steps_per_epoch)
    start = trainer.restore()
    first = True
    for epoch in range(start, cfg.epochs):
        t0 = time.time()
        for x, y in train:
            loss = trainer.train_step(x, y, first)
            first = False
        val_mae = trainer.validate(val)
        trainer.ckpt.epoch.assign(epoch + 1)
        if hvd.rank() == 0:
            print(f"epoch {epoch}: train MAE {float(loss):.4f}  val MAE {float(val_mae):.4f}  {time.time() - t0:.0f}s")
            trainer.manager.save()
    if hvd.rank() == 0:
        trainer.model.save(os.path.join(cfg.ckpt_dir, "nowcast_final.keras"))


if __name__ == "__main__":
    main()
