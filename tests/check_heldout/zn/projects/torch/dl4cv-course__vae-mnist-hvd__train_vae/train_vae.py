"""Week 9 assignment, grown into a package: a convolutional VAE on MNIST, multi-GPU with Horovod.

    horovodrun -np 4 python train_vae.py --data data/mnist.npz --epochs 30 --latent 16
"""
import argparse
from dataclasses import dataclass, asdict

import torch
import horovod.torch as hvd

from vaekit.data import load_mnist_npz, ShardedBatches
from vaekit.model import ConvVAE
from vaekit.trainer import Trainer


@dataclass
class Config:
    data: str = "data/mnist.npz"
    epochs: int = 30
    batch_size: int = 128       # per worker
    lr: float = 1e-3            # tuned on one GPU
    warmup_epochs: int = 2
    latent: int = 16
    beta: float = 1.0
    out_dir: str = "checkpoints/vae"
    resume: str = ""
    seed: int = 0
    samples_every: int = 5


def parse_config() -> Config:
    cfg = Config()
    p = argparse.ArgumentParser()
    for k, v in asdict(cfg).items():
        p.add_argument("--" + k.replace("_", "-"), type=type(v), default=v)
    return Config(**vars(p.parse_args()))


def main():
    cfg = parse_config()
    hvd.init()
    torch.manual_seed(cfg.seed)

    (x_train, _), (x_test, _) = load_mnist_npz(cfg.data)
    train_batches = ShardedBatches(x_train, cfg.batch_size, hvd.rank(), hvd.size(), shuffle=True, seed=cfg.seed)
    test_batches = ShardedBatches(x_test, 500, hvd.rank(), hvd.size(), shuffle=False)

    model = ConvVAE(latent_dim=cfg.latent)
    trainer = Trainer(model, base_lr=cfg.lr, world_size=hvd.size(), warmup_epochs=cfg.warmup_epochs,
                      steps_per_epoch=len(train_batches), beta=cfg.beta, out_dir=cfg.out_dir)
    start_epoch = trainer.restore(cfg.resume)

    for epoch in range(start_epoch, cfg.epochs):
        train_batches.set_epoch(epoch)
        train_loss = trainer.train_epoch(train_batches)
        test_stats = trainer.evaluate(test_batches)
        if trainer.is_root:
            print(f"epoch {epoch:3d} | train elbo {train_loss:.3f} | test recon {test_stats['recon']:.3f} "
                  f"kl {test_stats['kl']:.3f} | lr {trainer.current_lr():.2e}", flush=True)
        trainer.save(epoch)
        if (epoch + 1) % cfg.samples_every == 0:
            trainer.write_samples(f"samples_e{epoch + 1:03d}.png")


if __name__ == "__main__":
    main()
