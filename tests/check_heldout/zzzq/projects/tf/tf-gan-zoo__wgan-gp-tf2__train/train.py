"""WGAN-GP in TF2 + horovod.

    horovodrun -np 4 python train.py --config configs/default.json
"""
import os
import time

import tensorflow as tf

from wgantf import config, hvd_setup
from wgantf.data import build_dataset
from wgantf.trainer import WGANGPTrainer


def main():
    cfg = config.load()
    rank, world = hvd_setup.init()
    ds, per_worker = build_dataset(cfg, rank, world)
    trainer = WGANGPTrainer(cfg, world)
    fixed_z = tf.random.stateless_normal([64, cfg.latent_dim], seed=[7, 7])

    if trainer.manager.latest_checkpoint:
        # every worker reads the same (shared) checkpoint; weights are broadcast again after the first step
        trainer.ckpt.restore(trainer.manager.latest_checkpoint)
        if hvd_setup.is_chief():
            print("restored", trainer.manager.latest_checkpoint)

    first = True
    for epoch in range(int(trainer.ckpt.epoch.numpy()), cfg.epochs):
        t0 = time.time()
        for step, real in enumerate(ds):
            trainer.d_step(real)
            if step % cfg.n_critic == 0:
                trainer.g_step(per_worker)
            if first:
                # variables (and optimizer slots) exist only after the first steps
                trainer.sync()
                first = False
        logs = trainer.epoch_metrics()
        trainer.ckpt.epoch.assign(epoch + 1)
        if hvd_setup.is_chief():
            print("epoch %d  d_loss %.4f  g_loss %.4f  gp %.4f  %.1fs" % (
                epoch, logs["d_loss"], logs["g_loss"], logs["gp"], time.time() - t0))
            trainer.sample_grid(fixed_z, os.path.join(cfg.sample_dir, "epoch_%03d.png" % epoch))
            trainer.manager.save()


if __name__ == "__main__":
    main()
