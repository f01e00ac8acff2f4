"""SimCLR pre-training on STL-10 (unlabeled split) on CPU nodes with Horovod.

Our cluster partition has no GPUs, so this is plain CPU data parallelism:
one process per socket, threads split between the processes of a node.

    mpirun -np 8 --map-by socket python pretrain.py --epochs 200 --batch-size 128
"""
import argparse
import os
import time

import torch
import torch.nn as nn
import torch.nn.functional as F
import torchvision
import torchvision.transforms as T
from torch.utils.tensorboard import SummaryWriter
import horovod.torch as hvd


class TwoViews:
    def __init__(self, size=96):
        self.tf = T.Compose([
            T.RandomResizedCrop(size, scale=(0.2, 1.0)),
            T.RandomHorizontalFlip(),
            T.RandomApply([T.ColorJitter(0.4, 0.4, 0.4, 0.1)], p=0.8),
            T.RandomGrayscale(p=0.2),
            T.ToTensor(),
            T.Normalize((0.43, 0.42, 0.39), (0.27, 0.26, 0.27)),
        ])

    def __call__(self, img):
        return self.tf(img), self.tf(img)


class SimCLR(nn.Module):
    def __init__(self, proj_dim=128):
        super().__init__()
        backbone = torchvision.models.resnet18()
        backbone.conv1 = nn.Conv2d(3, 64, 3, 1, 1, bias=False)
        backbone.maxpool = nn.Identity()
        feat_dim = backbone.fc.in_features
        backbone.fc = nn.Identity()
        self.backbone = backbone
        self.projector = nn.Sequential(nn.Linear(feat_dim, 512), nn.ReLU(inplace=True), nn.Linear(512, proj_dim))

    def forward(self, x):
        return self.projector(self.backbone(x))


def nt_xent(z1, z2, temperature):
    """Normalised temperature-scaled cross entropy over the 2B views of this worker's batch."""
    z = F.normalize(torch.cat([z1, z2]), dim=1)
    sim = z @ z.t() / temperature
    n = z1.shape[0]
    sim.fill_diagonal_(float("-inf"))
    targets = torch.cat([torch.arange(n, 2 * n), torch.arange(0, n)])
    return F.cross_entropy(sim, targets)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--data", default="/proj/datasets/stl10")
    ap.add_argument("--epochs", type=int, default=200)
    ap.add_argument("--batch-size", type=int, default=128, help="images per worker")
    ap.add_argument("--lr", type=float, default=0.06, help="lr of one worker with this batch size")
    ap.add_argument("--temperature", type=float, default=0.2)
    ap.add_argument("--save-every", type=int, default=10)
    ap.add_argument("--logdir", default="runs/simclr")
    args = ap.parse_args()

    hvd.init()
    torch.set_num_threads(max(1, os.cpu_count() // hvd.local_size()))

    dataset = torchvision.datasets.STL10(args.data, split="unlabeled", transform=TwoViews(), download=False)
    sampler = torch.utils.data.distributed.DistributedSampler(dataset, num_replicas=hvd.size(), rank=hvd.rank())
    loader = torch.utils.data.DataLoader(dataset, batch_size=args.batch_size, sampler=sampler,
                                         num_workers=4, drop_last=True, persistent_workers=True)

    model = SimCLR()
    optimizer = torch.optim.SGD(model.parameters(), lr=args.lr, momentum=0.9, weight_decay=5e-4)
    # Summing the gradients of N workers is the same step as averaging them with N times the lr,
    # so the single-worker lr stays as it is.
    optimizer = hvd.DistributedOptimizer(optimizer, named_parameters=model.named_parameters(), op=hvd.Sum)
    scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=args.epochs * len(loader))

    hvd.broadcast_parameters(model.state_dict(), root_rank=0)
    hvd.broadcast_optimizer_state(optimizer, root_rank=0)

    writer = SummaryWriter(args.logdir)
    for epoch in range(args.epochs):
        sampler.set_epoch(epoch)
        model.train()
        t0 = time.time()
        total = torch.zeros(2)
        for (x1, x2), _ in loader:
            loss = nt_xent(model(x1), model(x2), args.temperature)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            scheduler.step()
            total += torch.tensor([loss.item(), 1.0])
        total = hvd.allreduce(total, op=hvd.Sum, name="epoch_loss")
        epoch_loss = (total[0] / total[1]).item()
        writer.add_scalar("pretrain/loss", epoch_loss, epoch)
        writer.add_scalar("pretrain/lr", scheduler.get_last_lr()[0], epoch)
        if hvd.rank() == 0:
            print(f"epoch {epoch:3d} loss {epoch_loss:.4f} {time.time() - t0:.0f}s", flush=True)
            if (epoch + 1) % args.save_every == 0:
                torch.save({"backbone": model.backbone.state_dict(), "epoch": epoch},
                           os.path.join(args.logdir, f"simclr_r18_ep{epoch + 1}.pt"))
    writer.close()


if __name__ == "__main__":
    main()
