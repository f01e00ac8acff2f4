"""Adversarial waveform autoencoder (timbre latent) -- Horovod training entry point.

    horovodrun -np 4 python train.py -c configs/guitar.json
"""
import argparse
import glob
import logging
import os

import numpy as np
import torch
import horovod.torch as hvd
from torch.utils.data import DataLoader, Dataset
from torch.utils.data.distributed import DistributedSampler

from aae.config import Config
from aae.trainer import AdversarialAETrainer

logger = logging.getLogger(__name__)


class WaveSegments(Dataset):
    """Every file is cut into non-overlapping segments once, at construction."""

    def __init__(self, files, segment):
        self.index = []
        self.segment = segment
        for path in files:
            n = np.load(path, mmap_mode="r").shape[0] // segment
            self.index += [(path, k) for k in range(n)]

    def __len__(self):
        return len(self.index)

    def __getitem__(self, i):
        path, k = self.index[i]
        wav = np.load(path, mmap_mode="r")[k * self.segment:(k + 1) * self.segment]
        peak = max(float(np.abs(wav).max()), 1e-4)
        return torch.from_numpy(np.array(wav, dtype=np.float32) / peak * 0.95)


def build_loaders(cfg):
    files = sorted(glob.glob(os.path.join(cfg.data_dir, "*.npy")))
    split = int(0.95 * len(files))
    train_set = WaveSegments(files[:split], cfg.segment)
    valid_set = WaveSegments(files[split:], cfg.segment)
    train_sampler = DistributedSampler(train_set, num_replicas=hvd.size(), rank=hvd.rank(), drop_last=True)
    valid_sampler = DistributedSampler(valid_set, num_replicas=hvd.size(), rank=hvd.rank(), shuffle=False)
    return (DataLoader(train_set, cfg.batch_size, sampler=train_sampler, num_workers=4, drop_last=True),
            DataLoader(valid_set, cfg.batch_size, sampler=valid_sampler, num_workers=2),
            train_sampler)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("-c", "--config", default=None)
    parser.add_argument("--epochs", type=int)
    parser.add_argument("--batch-size", dest="batch_size", type=int)
    parser.add_argument("--resume", default=None)
    cli = parser.parse_args()
    cfg = Config.load(cli.config, epochs=cli.epochs, batch_size=cli.batch_size)

    hvd.init()
    torch.set_num_threads(4)
    if torch.cuda.is_available():
        torch.cuda.set_device(hvd.local_rank())
        device = torch.device("cuda")
    else:
        device = torch.device("cpu")
    logging.basicConfig(level=logging.INFO if hvd.rank() == 0 else logging.ERROR)

    train_loader, valid_loader, train_sampler = build_loaders(cfg)
    trainer = AdversarialAETrainer(cfg, device, lr=cfg.lr * hvd.size())
    if cli.resume and hvd.rank() == 0:
        state = torch.load(cli.resume, map_location="cpu")
        trainer.ae.load_state_dict(state["ae"])
        trainer.disc.load_state_dict(state["disc"])
        trainer.epoch = state["epoch"] + 1
    trainer.epoch = hvd.broadcast_object(trainer.epoch, root_rank=0)
    trainer.sync()

    if hvd.rank() == 0:
        os.makedirs(cfg.out_dir, exist_ok=True)
        cfg.dump(os.path.join(cfg.out_dir, "config.json"))

    for epoch in range(trainer.epoch, cfg.epochs):
        trainer.epoch = epoch
        train_sampler.set_epoch(epoch)
        adversarial = epoch >= cfg.adv_start_epoch
        for i, wav in enumerate(train_loader):
            rec, d = trainer.step(wav, adversarial)
            if i % 100 == 0:
                logger.info("epoch %d it %d rec %.4f d %.4f", epoch, i, rec, d)

        total, count = trainer.eval_sums(valid_loader)
        sums = hvd.allreduce(torch.tensor([total, float(count)], dtype=torch.float64), op=hvd.Sum,
                             name="valid_sums")
        logger.info("epoch %d valid stft loss %.4f", epoch, (sums[0] / sums[1]).item())
        if (epoch + 1) % cfg.save_every == 0:
            trainer.save(os.path.join(cfg.out_dir, f"aae_{epoch:04d}.pt"))


if __name__ == "__main__":
    main()
