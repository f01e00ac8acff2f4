"""beta-VAE on Galaxy10 cutouts (H. Bauer, PhD, paper 2). horovod.tensorflow custom loop.

    horovodrun -np 4 python train.py --config configs/beta4.yaml
"""
import argparse

import horovod.tensorflow as hvd
import tensorflow as tf

from galvae.config import load
from galvae.data import galaxy_datasets
from galvae.model import ConvVAE
from galvae.schedule import WarmupCosine
from galvae.trainer import VAETrainer


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--config", default=None)
    ap.add_argument("--resume", action="store_true")
    args = ap.parse_args()
    cfg = load(args.config)

    hvd.init()
    gpus = tf.config.list_physical_devices("GPU")
    if gpus:
        tf.config.experimental.set_memory_growth(gpus[hvd.local_rank()], True)
        tf.config.set_visible_devices(gpus[hvd.local_rank()], "GPU")
    tf.random.set_seed(cfg.seed + hvd.rank())   # different dropout / sampling noise per worker

    train_ds, val_ds, steps = galaxy_datasets(cfg.data, cfg.batch_size, hvd.rank(), hvd.size())
    model = ConvVAE(latent_dim=cfg.latent_dim, beta=cfg.beta)
    schedule = WarmupCosine(peak_lr=cfg.lr * hvd.size(), warmup_steps=cfg.warmup_epochs * steps,
                            total_steps=cfg.epochs * steps)
    optimizer = tf.keras.optimizers.Adam(learning_rate=schedule)

    trainer = VAETrainer(model, optimizer, cfg, log_dir=cfg.log_dir if hvd.rank() == 0 else None)
    start = trainer.maybe_resume() if args.resume else 0
    trainer.fit(train_ds, val_ds, start_epoch=start)


if __name__ == "__main__":
    main()
