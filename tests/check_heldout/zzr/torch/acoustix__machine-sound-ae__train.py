import argparse
import logging

import torch
from torch import nn
import horovod.torch as hvd

from msae.config import load_config
from msae.data import make_loader
from msae.engine import Trainer
from msae.optim import build_optimizer, build_scheduler


class DenseAE(nn.Module):
    """DCASE 2020 task 2 baseline autoencoder."""

    def __init__(self, dim, bottleneck=8, hidden=128):
        super().__init__()
        layers, d = [], dim
        for h in [hidden] * 4:
            layers += [nn.Linear(d, h), nn.BatchNorm1d(h), nn.ReLU()]
            d = h
        self.encoder = nn.Sequential(*layers, nn.Linear(d, bottleneck))
        self.decoder = nn.Sequential(nn.Linear(bottleneck, hidden), nn.BatchNorm1d(hidden), nn.ReLU(),
                                     nn.Linear(hidden, hidden), nn.ReLU(), nn.Linear(hidden, dim))

    def forward(self, x):
        return self.decoder(self.encoder(x))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("-c", "--config", default=None, help="TOML config")
    opts = parser.parse_args()

    hvd.init()
    if torch.cuda.is_available():
        torch.cuda.set_device(hvd.local_rank())
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s %(message)s")

    cfg = load_config(opts.config)
    train_loader, train_sampler = make_loader(cfg, "train", hvd.rank(), hvd.size(), train=True)
    val_loader, _ = make_loader(cfg, "val", hvd.rank(), hvd.size(), train=False)

    model = DenseAE(cfg.input_dim).to(device)
    optimizer = build_optimizer(model, cfg)
    scheduler = build_scheduler(optimizer, cfg)
    hvd.broadcast_parameters(model.state_dict(), root_rank=0)
    hvd.broadcast_optimizer_state(optimizer, root_rank=0)

    Trainer(model, optimizer, scheduler, device, cfg).fit(train_loader, train_sampler, val_loader)


if __name__ == "__main__":
    main()
