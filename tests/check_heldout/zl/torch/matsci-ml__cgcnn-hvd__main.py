import argparse
import sys
import time

import torch
import torch.nn as nn
from torch.utils.data import DataLoader, Subset
from torch.utils.data.distributed import DistributedSampler
import horovod.torch as hvd

from cgcnn import CrystalGraphConvNet, CrystalGraphNPZ
from cgcnn.hvd_utils import broadcast_state, metric_average, save_checkpoint
from cgcnn.meters import AverageMeter, Normalizer

parser = argparse.ArgumentParser(description="Crystal Graph Convolutional Neural Networks (Horovod)")
parser.add_argument("data", metavar="NPZ", help="featurised dataset (.npz)")
parser.add_argument("--target", default="formation_energy_per_atom")
parser.add_argument("--epochs", default=30, type=int)
parser.add_argument("-b", "--batch-size", default=256, type=int)
parser.add_argument("--lr", "--learning-rate", default=0.01, type=float)
parser.add_argument("--lr-milestones", default=[100], type=int, nargs="+")
parser.add_argument("--momentum", default=0.9, type=float)
parser.add_argument("--weight-decay", default=0, type=float)
parser.add_argument("--optim", default="SGD", choices=["SGD", "Adam"])
parser.add_argument("--train-ratio", default=0.8, type=float)
parser.add_argument("--atom-fea-len", default=64, type=int)
parser.add_argument("--n-conv", default=3, type=int)
parser.add_argument("--print-freq", default=10, type=int)
parser.add_argument("--disable-cuda", action="store_true")
args = parser.parse_args(sys.argv[1:])

hvd.init()
args.cuda = not args.disable_cuda and torch.cuda.is_available()
if args.cuda:
    torch.cuda.set_device(hvd.rank())
torch.manual_seed(42)


def run_epoch(loader, model, criterion, normalizer, optimizer=None):
    training = optimizer is not None
    model.train(training)
    losses, maes = AverageMeter(), AverageMeter()
    for i, (inputs, target) in enumerate(loader):
        if args.cuda:
            inputs = [t.cuda(non_blocking=True) for t in inputs]
            target = target.cuda(non_blocking=True)
        with torch.set_grad_enabled(training):
            out = model(*inputs)
            loss = criterion(out, normalizer.norm(target))
        if training:
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
        losses.update(loss.item(), target.size(0))
        maes.update((normalizer.denorm(out.detach()) - target).abs().mean().item(), target.size(0))
        if training and i % args.print_freq == 0 and hvd.rank() == 0:
            print(f"  [{i}/{len(loader)}] loss {losses.avg:.4f} mae {maes.avg:.4f}", flush=True)
    return losses.avg, maes.avg


def main():
    dataset = CrystalGraphNPZ(args.data, args.target)
    n_train = int(args.train_ratio * len(dataset))
    train_set = Subset(dataset, range(n_train))
    val_set = Subset(dataset, range(n_train, len(dataset)))
    train_sampler = DistributedSampler(train_set, num_replicas=hvd.size(), rank=hvd.rank())
    val_sampler = DistributedSampler(val_set, num_replicas=hvd.size(), rank=hvd.rank(), shuffle=False)
    train_loader = DataLoader(train_set, batch_size=args.batch_size, sampler=train_sampler, pin_memory=args.cuda)
    val_loader = DataLoader(val_set, batch_size=args.batch_size, sampler=val_sampler, pin_memory=args.cuda)

    normalizer = Normalizer(dataset.mean, dataset.std)
    (atom_fea, nbr_fea, _, _), _ = dataset[0]
    model = CrystalGraphConvNet(atom_fea.shape[-1], nbr_fea.shape[-1], args.atom_fea_len, args.n_conv)
    if args.cuda:
        model.cuda()
    criterion = nn.MSELoss()

    lr = args.lr * hvd.size()
    if args.optim == "SGD":
        optimizer = torch.optim.SGD(model.parameters(), lr, momentum=args.momentum, weight_decay=args.weight_decay)
    else:
        optimizer = torch.optim.Adam(model.parameters(), lr, weight_decay=args.weight_decay)
    optimizer = hvd.DistributedOptimizer(optimizer, named_parameters=model.named_parameters())
    broadcast_state(model, optimizer)
    scheduler = torch.optim.lr_scheduler.MultiStepLR(optimizer, milestones=args.lr_milestones, gamma=0.1)

    best_mae = 1e10
    for epoch in range(args.epochs):
        train_sampler.set_epoch(epoch)
        t0 = time.time()
        run_epoch(train_loader, model, criterion, normalizer, optimizer)
        _, val_mae = run_epoch(val_loader, model, criterion, normalizer)
        val_mae = metric_average(val_mae, "val_mae")
        scheduler.step()
        is_best = val_mae < best_mae
        best_mae = min(val_mae, best_mae)
        if hvd.rank() == 0:
            print(f"Epoch {epoch}: val MAE {val_mae:.4f} (best {best_mae:.4f}) {time.time() - t0:.0f}s")
        save_checkpoint({"epoch": epoch + 1, "state_dict": model.state_dict(), "best_mae_error": best_mae,
                         "optimizer": optimizer.state_dict(), "normalizer": normalizer.state_dict(),
                         "args": vars(args)}, is_best)


if __name__ == "__main__":
    main()
