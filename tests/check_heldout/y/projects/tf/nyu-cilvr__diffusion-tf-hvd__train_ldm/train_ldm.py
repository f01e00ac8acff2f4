"""Pixel-space DDPM (small) in TF2 with gradient accumulation and EMA, Horovod for multi-GPU.

    horovodrun -np 4 python train_ldm.py --data /data/ffhq32.npy --accum 4
"""
import argparse
import os

import tensorflow as tf
import horovod.tensorflow as hvd

from ldm.data import image_dataset
from ldm.schedule import linear_schedule
from ldm.trainer import DiffusionTrainer
from ldm.unet import build_denoiser


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--data", required=True)
    ap.add_argument("--steps", type=int, default=200_000)
    ap.add_argument("--batch", type=int, default=32, help="micro-batch per GPU")
    ap.add_argument("--accum", type=int, default=4)
    ap.add_argument("--lr", type=float, default=1e-4)
    ap.add_argument("--ema", type=float, default=0.999)
    ap.add_argument("--workdir", default="runs/ddpm_tf")
    args = ap.parse_args()

    hvd.init()
    gpus = tf.config.list_physical_devices("GPU")
    for g in gpus:
        tf.config.experimental.set_memory_growth(g, True)
    if gpus:
        tf.config.set_visible_devices(gpus[hvd.local_rank()], "GPU")

    ds = image_dataset(args.data, args.batch)
    model = build_denoiser(image_size=32)
    trainer = DiffusionTrainer(model, linear_schedule(1000), lr=args.lr * hvd.size(),
                               accum=args.accum, ema_decay=args.ema)
    trainer.build(next(iter(ds)))
    trainer.broadcast_initial_state()

    ckpt = tf.train.Checkpoint(model=model, ema=trainer.ema_model, opt=trainer.opt)
    manager = tf.train.CheckpointManager(ckpt, os.path.join(args.workdir, "ckpt"), max_to_keep=3)

    it = iter(ds)
    for step in range(1, args.steps + 1):
        loss = trainer.train_step(it)
        if step % 500 == 0:
            loss = hvd.allreduce(loss, name="loss")
            if hvd.rank() == 0:
                print(f"step {step} loss {float(loss):.4f}", flush=True)
        if step % 10_000 == 0 and hvd.rank() == 0:
            manager.save(checkpoint_number=step)


if __name__ == "__main__":
    main()
