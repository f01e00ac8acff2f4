"""Land-cover U-Net on 4-band tiles.

    srun -N 4 --ntasks-per-node 4 python train.py
"""
import time

import horovod.torch as hvd
import torch
import torch.nn.functional as F

import config as C
from landcover.datamodule import TileDataModule
from landcover.io import save_model
from landcover.unet import UNet


def confusion(pred, target, n):
    idx = target.flatten() * n + pred.flatten()
    return torch.bincount(idx, minlength=n * n).reshape(n, n)


def main():
    hvd.init()
    if torch.cuda.is_available():
        torch.cuda.set_device(hvd.local_rank())
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")

    dm = TileDataModule(C.DATA_ROOT, C.BATCH_PER_GPU, shard_id=hvd.local_rank(), num_shards=hvd.size())
    train_loader, val_loader = dm.train_dataloader(), dm.val_dataloader()

    n_cls = len(C.CLASSES)
    model = UNet(C.IN_CHANNELS, n_cls).to(device)
    optimizer = torch.optim.AdamW(model.parameters(), lr=C.LR, weight_decay=C.WEIGHT_DECAY)
    optimizer = hvd.DistributedOptimizer(optimizer, named_parameters=model.named_parameters())
    scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=C.EPOCHS)
    hvd.broadcast_parameters(model.state_dict(), root_rank=0)
    hvd.broadcast_optimizer_state(optimizer, root_rank=0)

    best_miou = 0.0
    for epoch in range(C.EPOCHS):
        model.train()
        t0 = time.time()
        for x, y in train_loader:
            x, y = x.to(device), y.to(device)
            optimizer.zero_grad()
            loss = F.cross_entropy(model(x), y)
            loss.backward()
            optimizer.step()
        scheduler.step()

        model.eval()
        conf = torch.zeros(n_cls, n_cls, dtype=torch.int64, device=device)
        with torch.no_grad():
            for x, y in val_loader:
                x, y = x.to(device), y.to(device)
                conf += confusion(model(x).argmax(1), y, n_cls)
        conf = hvd.allreduce(conf, op=hvd.Sum, name="confusion").double()
        iou = conf.diag() / (conf.sum(0) + conf.sum(1) - conf.diag()).clamp(min=1)
        miou = iou.mean().item()
        if hvd.rank() == 0:
            per_class = " ".join(f"{c}={v:.3f}" for c, v in zip(C.CLASSES, iou.tolist()))
            print(f"epoch {epoch} mIoU {miou:.4f} [{per_class}] {time.time() - t0:.0f}s", flush=True)
        if miou > best_miou:
            best_miou = miou
            save_model(model, optimizer, epoch, C.OUT_DIR, tag="best")
        save_model(model, optimizer, epoch, C.OUT_DIR)


if __name__ == "__main__":
    main()
