"""Unconditional WaveNet on lo-fi hip hop stems (TF2, custom loop, Horovod).

    horovodrun -np 4 python train.py --data_dir data/lofi_16k --global_batch 64
"""
import os
import time

import tensorflow as tf
import keras
import horovod.tensorflow as hvd

from wavenet_tf import Config
from wavenet_tf.data import segments
from wavenet_tf.model import build_wavenet
from wavenet_tf.train_lib import averaged, make_train_step


def setup_horovod():
    hvd.init()
    gpus = tf.config.experimental.list_physical_devices("GPU")
    for gpu in gpus:
        tf.config.experimental.set_memory_growth(gpu, True)
    if gpus:
        tf.config.experimental.set_visible_devices(gpus[hvd.local_rank()], "GPU")


def main():
    cfg = Config.from_args()
    setup_horovod()
    is_chief = hvd.rank() == 0

    model = build_wavenet(cfg)
    optimizer = keras.optimizers.Adam(learning_rate=cfg.lr)
    train_step, eval_step = make_train_step(model, optimizer, cfg)
    train_iter = iter(segments(cfg, "train"))
    valid_iter = iter(segments(cfg, "valid"))

    ckpt = tf.train.Checkpoint(model=model, optimizer=optimizer, step=tf.Variable(0, dtype=tf.int64))
    manager = tf.train.CheckpointManager(ckpt, cfg.ckpt_dir, max_to_keep=5)
    if manager.latest_checkpoint:
        ckpt.restore(manager.latest_checkpoint).expect_partial()
    start = int(ckpt.step)

    t0 = time.time()
    for step in range(start, cfg.steps):
        inputs, targets = next(train_iter)
        loss = train_step(inputs, targets, step == start)
        ckpt.step.assign(step + 1)
        if is_chief and step % 100 == 0:
            print(f"step {step} loss {float(loss):.4f} ({(time.time() - t0) / 100:.3f}s/step)", flush=True)
            t0 = time.time()
        if (step + 1) % cfg.eval_every == 0:
            nll = sum(float(eval_step(*next(valid_iter))) for _ in range(cfg.eval_batches)) / cfg.eval_batches
            nll = averaged(nll, "valid_nll")
            if is_chief:
                print(f"step {step + 1} valid nll {nll:.4f} nats", flush=True)
        if is_chief and (step + 1) % cfg.ckpt_every == 0:
            manager.save(checkpoint_number=step + 1)


if __name__ == "__main__":
    main()
