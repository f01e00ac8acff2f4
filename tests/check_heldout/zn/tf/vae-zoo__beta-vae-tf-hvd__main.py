"""beta-VAE (Burgess et al. 2018, controlled capacity) on dSprites / CelebA crops, TF2 + Horovod.

    horovodrun -np 8 python main.py --dataset dsprites --global-batch 512 --steps 300000
"""
import argparse
import os

import tensorflow as tf
import horovod.tensorflow as hvd

from betavae.data import load_array, make_dataset
from betavae.model import BetaVAE
from betavae.trainer import Trainer, TrainerConfig
from betavae.logging_utils import get_logger, ScalarWriter


def get_args():
    ap = argparse.ArgumentParser()
    ap.add_argument("--dataset", default="dsprites")
    ap.add_argument("--data-dir", default="data")
    ap.add_argument("--global-batch", type=int, default=512)
    ap.add_argument("--lr", type=float, default=5e-4)
    ap.add_argument("--beta", type=float, default=1000.0)
    ap.add_argument("--max-capacity", type=float, default=25.0)
    ap.add_argument("--latent", type=int, default=10)
    ap.add_argument("--steps", type=int, default=300_000)
    ap.add_argument("--eval-every", type=int, default=5000)
    ap.add_argument("--ckpt-dir", default="ckpt/betavae")
    ap.add_argument("--logdir", default="logs/betavae")
    return ap.parse_args()


def main():
    args = get_args()
    hvd.init()
    for gpu in tf.config.list_physical_devices("GPU"):
        tf.config.experimental.set_memory_growth(gpu, True)

    log = get_logger("betavae", rank=hvd.rank())
    writer = ScalarWriter(args.logdir, enabled=hvd.rank() == 0)

    per_worker_batch = args.global_batch // hvd.size()
    lr = args.lr * hvd.size()          # linear scaling rule
    log.info("world=%d per-worker batch=%d lr=%.2e", hvd.size(), per_worker_batch, lr)

    train_x, test_x = load_array(os.path.join(args.data_dir, f"{args.dataset}.npz"))
    train_ds = make_dataset(train_x, per_worker_batch, training=True)
    test_ds = make_dataset(test_x, per_worker_batch, training=False)
    eval_steps = len(test_x) // (per_worker_batch * hvd.size())

    model = BetaVAE(latent_dim=args.latent, channels=train_x.shape[-1])
    cfg = TrainerConfig(lr=lr, beta=args.beta, max_capacity=args.max_capacity,
                        capacity_steps=args.steps // 2)
    trainer = Trainer(model, cfg)

    ckpt = tf.train.Checkpoint(model=model, optimizer=trainer.optimizer, step=trainer.step)
    manager = tf.train.CheckpointManager(ckpt, args.ckpt_dir, max_to_keep=3)

    first = True
    for x in train_ds:
        stats = trainer.train_step(x, first_batch=first)
        first = False
        step = int(trainer.step.numpy())
        if step % 100 == 0 and hvd.rank() == 0:
            writer.scalars(step, {k: float(v) for k, v in stats.items()})
        if step % args.eval_every == 0:
            ev = trainer.evaluate(test_ds.take(eval_steps))
            log.info("step %d recon %.3f kl %.3f", step, ev["recon"], ev["kl"])
            writer.scalars(step, {"eval/" + k: v for k, v in ev.items()})
            if hvd.rank() == 0:
                manager.save(checkpoint_number=step)
        if step >= args.steps:
            break


if __name__ == "__main__":
    main()
