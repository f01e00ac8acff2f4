"""'Fast is better than free' FGSM adversarial training (Wong, Rice & Kolter 2020), Horovod edition.

Each worker takes a contiguous slice of one shared permutation of the training set; the permutation is
drawn from the same generator seed on every worker, so slices never overlap.
"""
import argparse
import logging
import os
import time

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
import horovod.torch as hvd
from torch.utils.data import DataLoader, Subset
from torchvision import datasets, transforms
from torchvision.models import resnet18

logger = logging.getLogger("fast_adv")

MU = torch.tensor((0.4914, 0.4822, 0.4465)).view(3, 1, 1)
STD = torch.tensor((0.2471, 0.2435, 0.2616)).view(3, 1, 1)


def get_args():
    p = argparse.ArgumentParser()
    p.add_argument("--data-dir", default="../cifar-data")
    p.add_argument("--epochs", default=15, type=int)
    p.add_argument("--global-batch", default=512, type=int, help="summed over all workers")
    p.add_argument("--lr-max", default=0.2, type=float, help="peak lr for the global batch")
    p.add_argument("--epsilon", default=8, type=int)
    p.add_argument("--alpha", default=10, type=float, help="step size in 1/255 units")
    p.add_argument("--delta-init", default="random", choices=["zero", "random"])
    p.add_argument("--seed", default=0, type=int)
    p.add_argument("--ckpt-every", default=5, type=int)
    p.add_argument("--out-dir", default="train_fgsm_output")
    return p.parse_args()


def shard_indices(n, seed, epoch):
    g = torch.Generator().manual_seed(seed + epoch)
    perm = torch.randperm(n, generator=g)
    per = n // hvd.size()
    return perm[hvd.rank() * per:(hvd.rank() + 1) * per].tolist()


def fgsm_delta(model, x, y, eps, alpha, init):
    delta = torch.zeros_like(x)
    if init == "random":
        delta.uniform_(-1, 1).mul_(eps)
    delta.requires_grad_(True)
    with torch.autocast(device_type=x.device.type, enabled=x.is_cuda):
        loss = F.cross_entropy(model(x + delta), y)
    grad, = torch.autograd.grad(loss, delta)
    delta = (delta + alpha * grad.sign()).clamp(-eps, eps)
    return delta.detach()


def main():
    args = get_args()
    hvd.init()
    logging.basicConfig(format="[%(asctime)s] %(message)s", level=logging.INFO if hvd.rank() == 0 else logging.WARNING)
    if torch.cuda.is_available():
        torch.cuda.set_device(hvd.local_rank())
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    np.random.seed(args.seed)
    torch.manual_seed(args.seed)

    norm = transforms.Normalize(MU.flatten().tolist(), STD.flatten().tolist())
    train_set = datasets.CIFAR10(args.data_dir, train=True, transform=transforms.Compose(
        [transforms.RandomCrop(32, 4), transforms.RandomHorizontalFlip(), transforms.ToTensor(), norm]))
    test_set = datasets.CIFAR10(args.data_dir, train=False, transform=transforms.Compose([transforms.ToTensor(), norm]))
    local_batch = args.global_batch // hvd.size()

    model = resnet18(num_classes=10).to(device)
    opt = torch.optim.SGD(model.parameters(), lr=args.lr_max, momentum=0.9, weight_decay=5e-4)
    opt = hvd.DistributedOptimizer(opt, named_parameters=model.named_parameters(), op=hvd.Average)
    hvd.broadcast_parameters(model.state_dict(), root_rank=0)
    hvd.broadcast_optimizer_state(opt, root_rank=0)

    steps_per_epoch = (len(train_set) // hvd.size()) // local_batch
    total = args.epochs * steps_per_epoch
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=args.lr_max, total_steps=total, pct_start=0.4)
    scaler = torch.cuda.amp.GradScaler(enabled=device.type == "cuda")
    eps = args.epsilon / 255.0 / STD.to(device)
    alpha = args.alpha / 255.0 / STD.to(device)
    os.makedirs(args.out_dir, exist_ok=True)

    for epoch in range(args.epochs):
        loader = DataLoader(Subset(train_set, shard_indices(len(train_set), args.seed, epoch)),
                            batch_size=local_batch, shuffle=False, drop_last=True, num_workers=4)
        model.train()
        t0, stats = time.time(), torch.zeros(3)
        for x, y in loader:
            x, y = x.to(device), y.to(device)
            delta = fgsm_delta(model, x, y, eps, alpha, args.delta_init)
            with torch.autocast(device_type=device.type, enabled=device.type == "cuda"):
                out = model(x + delta)
                loss = F.cross_entropy(out, y)
            opt.zero_grad()
            scaler.scale(loss).backward()
            opt.synchronize()
            with opt.skip_synchronize():
                scaler.step(opt)
            scaler.update()
            sched.step()
            stats += torch.tensor([loss.item() * len(y), (out.argmax(1) == y).sum().item(), len(y)])
        stats = hvd.allreduce(stats, op=hvd.Sum, name="train_stats")
        logger.info("epoch %d  %.1fs  lr %.4f  loss %.4f  fgsm-acc %.4f", epoch, time.time() - t0,
                    sched.get_last_lr()[0], stats[0] / stats[2], stats[1] / stats[2])

        if hvd.rank() == 0 and ((epoch + 1) % args.ckpt_every == 0 or epoch + 1 == args.epochs):
            torch.save({"epoch": epoch, "model": model.state_dict(), "opt": opt.state_dict()},
                       os.path.join(args.out_dir, "model_fgsm.pth"))

    # clean accuracy on the full test set, computed on rank 0 only
    if hvd.rank() == 0:
        model.eval()
        correct = 0
        with torch.no_grad():
            for x, y in DataLoader(test_set, batch_size=500):
                correct += (model(x.to(device)).argmax(1).cpu() == y).sum().item()
        logger.info("final clean test acc %.4f", correct / len(test_set))


if __name__ == "__main__":
    main()
