# GPU Hackathon 2025 - team "mitosis": U-Net cell segmentation, Horovod version
# usage: mpirun -np 8 python main.py
import os

import torch
import torch.nn as nn
from torch.utils.data import DataLoader
import horovod.torch as hvd

import config
from data import CellDataset, shard
from model import UNet
from utils import dice_score, metric_average, sync_state


def main():
    hvd.init()
    if torch.cuda.is_available():
        torch.cuda.set_device(hvd.local_rank())
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")

    train_ds = shard(CellDataset(config.DATA_ROOT, "train"), hvd.rank(), hvd.size())
    val_ds = shard(CellDataset(config.DATA_ROOT, "val"), hvd.rank(), hvd.size())
    train_loader = DataLoader(train_ds, batch_size=config.BATCH_PER_RANK, shuffle=True,
                              num_workers=4, drop_last=True)
    val_loader = DataLoader(val_ds, batch_size=config.BATCH_PER_RANK, shuffle=False,
                            drop_last=True)

    model = UNet(c=config.BASE_CHANNELS).to(device)
    # fixed global batch -> lr stays as in the 1-GPU baseline
    opt = torch.optim.Adam(model.parameters(), lr=config.LR)
    opt = hvd.DistributedOptimizer(opt, named_parameters=model.named_parameters())
    sync_state(model, opt)
    criterion = nn.BCEWithLogitsLoss()

    for epoch in range(config.EPOCHS):
        model.train()
        for img, mask in train_loader:
            img, mask = img.to(device), mask.to(device)
            opt.zero_grad()
            loss = criterion(model(img), mask)
            loss.backward()
            opt.step()

        model.eval()
        dices = []
        with torch.no_grad():
            for img, mask in val_loader:
                dices.append(dice_score(model(img.to(device)), mask.to(device)))
        val_dice = metric_average(sum(dices) / max(len(dices), 1), "val_dice")
        if hvd.rank() == 0:
            print(f"epoch {epoch:02d} loss {loss.item():.4f} val dice {val_dice:.4f}", flush=True)
            torch.save(model.state_dict(), config.CHECKPOINT)


if __name__ == "__main__":
    main()
