"""Two-stage training of a small convolutional weather emulator (Z500/T850, 5.625 deg).

stage 1: one-step MSE; stage 2: autoregressive rollout fine-tuning with a lower LR.
    srun -n 8 python train_tape.py --data-dir /lustre/proj/wx/z500_t850_5p625
"""
import argparse
import dataclasses
import os
import time

import tensorflow as tf
import horovod.tensorflow as hvd
import keras

from wxemu.config import Config
from wxemu.data import make_dataset
from wxemu.model import build_emulator
from wxemu.steps import make_train_step, make_rollout_step, eval_step

hvd.init()
gpus = tf.config.list_physical_devices("GPU")
for g in gpus:
    tf.config.experimental.set_memory_growth(g, True)
if gpus:
    tf.config.set_visible_devices(gpus[hvd.local_rank()], "GPU")


def cli():
    cfg = Config()
    ap = argparse.ArgumentParser()
    for f in dataclasses.fields(cfg):
        ap.add_argument("--" + f.name.replace("_", "-"), dest=f.name, type=type(f.default), default=f.default)
    return Config(**vars(ap.parse_args()))


def validate(model, ds):
    losses = [eval_step(model, w) for w in ds]
    return float(tf.reduce_mean(losses))


def main():
    cfg = cli()
    train_ds = make_dataset(cfg.data_dir, "train", cfg.batch_size, 1, hvd.rank(), hvd.size())
    val_ds = make_dataset(cfg.data_dir, "val", cfg.batch_size, 1, hvd.rank(), hvd.size(), shuffle=False)
    roll_ds = make_dataset(cfg.data_dir, "train", cfg.batch_size // 2, cfg.rollout_steps, hvd.rank(), hvd.size())

    model = build_emulator(cfg.channels, cfg.filters)
    lr = keras.optimizers.schedules.CosineDecay(cfg.lr * hvd.size(), decay_steps=200_000)
    opt = keras.optimizers.Adam(learning_rate=lr)
    ckpt = tf.train.Checkpoint(model=model, optimizer=opt)
    manager = tf.train.CheckpointManager(ckpt, cfg.ckpt_dir, max_to_keep=3)

    train_step = make_train_step(model, opt)
    step = 0
    for epoch in range(cfg.epochs_onestep):
        t0 = time.time()
        for window in train_ds:
            loss = train_step(window, step == 0)
            if step % cfg.log_every == 0 and hvd.rank() == 0:
                print(f"[one-step] step {step} loss {loss.numpy():.5f}", flush=True)
            step += 1
        val = validate(model, val_ds)
        if hvd.rank() == 0:
            print(f"[one-step] epoch {epoch} val MSE {val:.5f} ({time.time() - t0:.0f}s)", flush=True)
        if hvd.local_rank() == 0:
            manager.save(checkpoint_number=epoch)

    # stage 2: lower LR, multi-step rollout
    ft_opt = keras.optimizers.Adam(learning_rate=0.1 * cfg.lr * hvd.size())
    rollout_step = make_rollout_step(model, ft_opt, cfg.rollout_steps)
    for epoch in range(cfg.epochs_rollout):
        for window in roll_ds:
            loss = rollout_step(window)
        val = validate(model, val_ds)
        if hvd.rank() == 0:
            print(f"[rollout] epoch {epoch} last loss {loss.numpy():.5f} val MSE {val:.5f}", flush=True)
        if hvd.local_rank() == 0:
            manager.save(checkpoint_number=cfg.epochs_onestep + epoch)


if __name__ == "__main__":
    main()
