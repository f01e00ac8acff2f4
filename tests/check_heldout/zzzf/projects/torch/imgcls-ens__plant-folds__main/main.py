import argparse
import logging
import os

import torch
import torch.nn.functional as F
import torchvision
import horovod.torch as hvd

import config as C
from plantcv.env import setup_env
from plantcv.data import read_folds, fold_loaders, LeafDataset
from plantcv.optim import build_optimizer
from plantcv.ensemble import predict_ensemble

log = logging.getLogger("plantcv")


def make_model():
    return torchvision.models.resnet18(num_classes=C.NUM_CLASSES)


def metric_avg(value, name):
    return hvd.allreduce(torch.tensor(value), name=name).item()


def train_fold(fold, rows, device, epochs):
    train_loader, val_loader, sampler = fold_loaders(rows, fold, C)
    model = make_model().to(device)
    optimizer, scheduler = build_optimizer(model, C)
    hvd.broadcast_parameters(model.state_dict(), root_rank=0)
    hvd.broadcast_optimizer_state(optimizer, root_rank=0)
    best_acc, path = 0.0, os.path.join(C.OUT_DIR, f"resnet18_f{fold}.pth")
    for epoch in range(epochs):
        sampler.set_epoch(epoch)
        model.train()
        for x, y in train_loader:
            x, y = x.to(device), y.to(device)
            optimizer.zero_grad()
            F.cross_entropy(model(x), y, label_smoothing=0.1).backward()
            optimizer.step()
        scheduler.step()
        model.eval()
        correct = n = 0
        with torch.no_grad():
            for x, y in val_loader:
                correct += (model(x.to(device)).argmax(1).cpu() == y).sum().item()
                n += len(y)
        acc = metric_avg(correct / max(n, 1), "val_acc")
        log.info("fold %d epoch %d acc %.4f", fold, epoch, acc)
        if hvd.rank() == 0 and acc > best_acc:
            best_acc = acc
            torch.save(model.state_dict(), path)
    return path


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--epochs", type=int, default=C.EPOCHS)
    ap.add_argument("--folds", type=int, nargs="*", default=list(range(C.N_FOLDS)))
    ap.add_argument("--quiet", action="store_true")
    args = ap.parse_args()

    device = setup_env(verbose=not args.quiet)
    os.makedirs(C.OUT_DIR, exist_ok=True)
    rows = read_folds(C.FOLDS_CSV)
    paths = [train_fold(f, rows, device, args.epochs) for f in args.folds]

    if hvd.rank() == 0:
        test_rows = read_folds(C.TEST_CSV)
        loader = torch.utils.data.DataLoader(LeafDataset(test_rows, C.IMG_SIZE, train=False), 64)
        probs = predict_ensemble(make_model, paths, loader, device)
        labels = torch.tensor([r[1] for r in test_rows])
        log.info("ensemble of %d folds: test acc %.4f", len(paths),
                 (probs.argmax(1) == labels).float().mean().item())


if __name__ == "__main__":
    main()
