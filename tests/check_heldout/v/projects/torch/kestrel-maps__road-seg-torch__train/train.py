"""Road-surface segmentation, PyTorch port of train_tape.py.

Gradients are summed over workers (op=hvd.Sum), so --lr is the per-GPU learning rate and is not
multiplied by the number of workers.  Validation runs on rank 0 over the whole validation split.

    horovodrun -np 4 python train.py --tiles /scratch/kestrel/tiles-2024-npz
"""
import argparse

import horovod.torch as hvd
import torch
from torch.utils.data import DataLoader
from torch.utils.data.distributed import DistributedSampler

from segtorch.data import TileDataset
from segtorch.engine import road_iou, train_one_epoch
from segtorch.env import init_distributed, is_chief, save_on_chief
from segtorch.unet import UNetSmall

parser = argparse.ArgumentParser()
parser.add_argument("--tiles", default="/scratch/kestrel/tiles-2024-npz")
parser.add_argument("--workdir", default="runs/roadseg-torch")
parser.add_argument("--batch", type=int, default=16)
parser.add_argument("--epochs", type=int, default=40)
parser.add_argument("--lr", type=float, default=0.01)
parser.add_argument("--val-every", type=int, default=1)


def main(args):
    device = init_distributed(seed=2024)

    train_set = TileDataset(args.tiles, "train", augment=True)
    sampler = DistributedSampler(train_set, num_replicas=hvd.size(), rank=hvd.rank(), shuffle=True, seed=2024)
    train_loader = DataLoader(train_set, batch_size=args.batch, sampler=sampler, num_workers=2, drop_last=True)

    model = UNetSmall().to(device)
    optimizer = torch.optim.SGD(model.parameters(), lr=args.lr, momentum=0.9, weight_decay=1e-4)
    optimizer = hvd.DistributedOptimizer(optimizer, named_parameters=model.named_parameters(), op=hvd.Sum)
    hvd.broadcast_parameters(model.state_dict(), root_rank=0)
    hvd.broadcast_optimizer_state(optimizer, root_rank=0)

    val_loader = None
    if is_chief():
        val_loader = DataLoader(TileDataset(args.tiles, "val"), batch_size=args.batch, shuffle=False)

    for epoch in range(args.epochs):
        sampler.set_epoch(epoch)
        loss = train_one_epoch(model, train_loader, optimizer, device, log=print if is_chief() else None)
        if is_chief() and (epoch + 1) % args.val_every == 0:
            iou = road_iou(model, val_loader, device)
            print(f"epoch {epoch:3d} loss {loss:.4f} val road IoU {iou:.4f}")
            save_on_chief({"epoch": epoch, "model": model.state_dict(), "iou": iou},
                          f"{args.workdir}/roadseg-last.pt")


if __name__ == "__main__":
    main(parser.parse_args())
