# ResNet-18 on CIFAR-10 with a pluggable distributed backend.
#   horovodrun -np 8 -H host1:4,host2:4 python main.py
#   torchrun --nnodes 2 --nproc_per_node 4 main.py --dist-backend nccl
#   python main.py --dist-backend none
import argparse
import os
import time

import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.distributed as dist
import torchvision
import torchvision.transforms as T
from torch.utils.data import DataLoader
from torch.utils.data.distributed import DistributedSampler

try:
    import horovod.torch as hvd
except ImportError:  # horovod is optional
    hvd = None


class DistEnv:
    """Tiny facade over horovod / torch.distributed / nothing."""

    def __init__(self, backend):
        self.backend = backend
        if backend == "horovod":
            hvd.init()
            self.rank, self.world_size = hvd.rank(), hvd.size()
        elif backend in ("nccl", "gloo"):
            dist.init_process_group(backend)
            self.rank, self.world_size = dist.get_rank(), dist.get_world_size()
        else:
            self.rank, self.world_size = 0, 1

    @property
    def is_master(self):
        return self.rank == 0

    def sum(self, tensor, name):
        if self.backend == "horovod":
            return hvd.allreduce(tensor, name=name, op=hvd.Sum)
        if self.backend in ("nccl", "gloo"):
            dist.all_reduce(tensor)
        return tensor

    def barrier(self):
        if self.backend == "horovod":
            hvd.join()
        elif self.backend in ("nccl", "gloo"):
            dist.barrier()


def build_data(args, env):
    mean, std = (0.4914, 0.4822, 0.4465), (0.2470, 0.2435, 0.2616)
    train_tf = T.Compose([T.RandomCrop(32, padding=4), T.RandomHorizontalFlip(), T.ToTensor(), T.Normalize(mean, std)])
    test_tf = T.Compose([T.ToTensor(), T.Normalize(mean, std)])
    if args.fake_data:
        train_set = torchvision.datasets.FakeData(5000, (3, 32, 32), 10, transform=test_tf)
        test_set = torchvision.datasets.FakeData(1000, (3, 32, 32), 10, transform=test_tf, random_offset=7)
    else:
        if env.is_master:
            torchvision.datasets.CIFAR10(args.data, train=True, download=True)
        env.barrier()
        train_set = torchvision.datasets.CIFAR10(args.data, train=True, transform=train_tf)
        test_set = torchvision.datasets.CIFAR10(args.data, train=False, transform=test_tf)
    train_sampler = DistributedSampler(train_set, num_replicas=env.world_size, rank=env.rank)
    test_sampler = DistributedSampler(test_set, num_replicas=env.world_size, rank=env.rank, shuffle=False)
    train_loader = DataLoader(train_set, args.batch_size, sampler=train_sampler, num_workers=args.workers,
                              pin_memory=True, drop_last=True)
    test_loader = DataLoader(test_set, 256, sampler=test_sampler, num_workers=args.workers)
    return train_loader, test_loader


def evaluate(model, loader, env, device):
    model.eval()
    totals = torch.zeros(3)
    with torch.no_grad():
        for x, y in loader:
            x, y = x.to(device), y.to(device)
            out = model(x)
            totals += torch.tensor([F.cross_entropy(out, y, reduction="sum").item(),
                                    (out.argmax(1) == y).sum().item(), y.size(0)])
    totals = env.sum(totals, name="eval_totals")
    return totals[0].item() / totals[2].item(), 100.0 * totals[1].item() / totals[2].item()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--dist-backend", default="horovod", choices=["horovod", "nccl", "gloo", "none"])
    parser.add_argument("--data", default=os.path.expanduser("~/data/cifar10"))
    parser.add_argument("--fake-data", action="store_true")
    parser.add_argument("--epochs", type=int, default=90)
    parser.add_argument("--batch-size", type=int, default=128, help="per-GPU batch size")
    parser.add_argument("--lr", type=float, default=0.1)
    parser.add_argument("--wd", type=float, default=5e-4)
    parser.add_argument("--workers", type=int, default=4)
    parser.add_argument("--fp16-allreduce", action="store_true")
    parser.add_argument("--save", default="checkpoints/resnet18.pt")
    args = parser.parse_args()

    env = DistEnv(args.dist_backend)
    if torch.cuda.is_available():
        torch.cuda.set_device(env.rank)
        device = torch.device("cuda")
    else:
        device = torch.device("cpu")
    torch.manual_seed(42)

    train_loader, test_loader = build_data(args, env)
    model = torchvision.models.resnet18(num_classes=10)
    model.conv1 = nn.Conv2d(3, 64, 3, 1, 1, bias=False)
    model.maxpool = nn.Identity()
    model.to(device)

    optimizer = torch.optim.SGD(model.parameters(), lr=args.lr, momentum=0.9, weight_decay=args.wd, nesterov=True)
    scheduler = torch.optim.lr_scheduler.OneCycleLR(optimizer, max_lr=args.lr, epochs=args.epochs,
                                                    steps_per_epoch=len(train_loader))
    if env.backend == "horovod":
        hvd.broadcast_parameters(model.state_dict(), root_rank=0)
        hvd.broadcast_optimizer_state(optimizer, root_rank=0)
        compression = hvd.Compression.fp16 if args.fp16_allreduce else hvd.Compression.none
        optimizer = hvd.DistributedOptimizer(optimizer, named_parameters=model.named_parameters(),
                                             compression=compression)
    elif env.backend != "none":
        model = nn.parallel.DistributedDataParallel(model)

    best_acc = 0.0
    for epoch in range(args.epochs):
        model.train()
        train_loader.sampler.set_epoch(epoch)
        tic = time.time()
        for x, y in train_loader:
            x, y = x.to(device, non_blocking=True), y.to(device, non_blocking=True)
            optimizer.zero_grad()
            loss = F.cross_entropy(model(x), y, label_smoothing=0.1)
            loss.backward()
            optimizer.step()
            scheduler.step()
        val_loss, val_acc = evaluate(model, test_loader, env, device)
        if env.is_master:
            print(f"epoch {epoch:3d} | loss {loss.item():.3f} | val_loss {val_loss:.3f} | "
                  f"val_acc {val_acc:.2f} | {time.time() - tic:.0f}s", flush=True)
            if val_acc > best_acc:
                best_acc = val_acc
                os.makedirs(os.path.dirname(args.save), exist_ok=True)
                state = model.module.state_dict() if hasattr(model, "module") else model.state_dict()
                torch.save({"epoch": epoch, "state_dict": state, "acc": val_acc}, args.save)


if __name__ == "__main__":
    main()
