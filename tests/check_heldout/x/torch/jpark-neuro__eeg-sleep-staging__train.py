"""Sleep staging from single-channel EEG (Sleep-EDF-20 epochs, 30 s @ 100 Hz).

PhD project J. Park, 2022-2024. Multi-GPU with Horovod:
    horovodrun -np 4 python train.py --global-batch 256 --fold 3
"""
import os

import horovod.torch as hvd
import torch
import torch.nn as nn

from sleepnet.config import ExpConfig
from sleepnet.data import SleepEpochs, make_loader
from sleepnet.early_stop import EarlyStopper
from sleepnet.metrics import ConfusionMeter
from sleepnet.model import DeepSleepLite


def run_epoch(model, loader, criterion, device, optimizer=None):
    train = optimizer is not None
    model.train(train)
    meter = ConfusionMeter(n_classes=5)
    loss_sum, n = 0.0, 0
    with torch.set_grad_enabled(train):
        for x, y in loader:
            x, y = x.to(device), y.to(device)
            logits = model(x)
            loss = criterion(logits, y)
            if train:
                optimizer.zero_grad()
                loss.backward()
                optimizer.step()
            loss_sum += loss.item() * y.size(0)
            n += y.size(0)
            meter.add(logits.argmax(1), y)
    return loss_sum, n, meter


def main():
    cfg = ExpConfig.from_args()
    hvd.init()
    torch.manual_seed(cfg.seed)
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")

    train_set = SleepEpochs(cfg.data_dir, cfg.fold, "train")
    val_set = SleepEpochs(cfg.data_dir, cfg.fold, "val")
    train_loader, train_sampler = make_loader(train_set, cfg.batch_per_gpu, hvd.rank(), hvd.size(), train=True)
    val_loader, _ = make_loader(val_set, cfg.batch_per_gpu, hvd.rank(), hvd.size(), train=False)

    model = DeepSleepLite().to(device)
    criterion = nn.CrossEntropyLoss(weight=train_set.class_weights().to(device))
    # global batch is fixed (cfg.global_batch), so the single-GPU lr is kept
    optimizer = torch.optim.Adam(model.parameters(), lr=cfg.lr, betas=(0.9, 0.999))
    optimizer = hvd.DistributedOptimizer(optimizer, named_parameters=model.named_parameters())
    hvd.broadcast_parameters(model.state_dict(), root_rank=0)
    hvd.broadcast_optimizer_state(optimizer, root_rank=0)

    stopper = EarlyStopper(os.path.join(cfg.out_dir, f"fold{cfg.fold}_best.pt"), patience=cfg.patience)
    for epoch in range(cfg.epochs):
        train_sampler.set_epoch(epoch)
        run_epoch(model, train_loader, criterion, device, optimizer)
        loss_sum, n, meter = run_epoch(model, val_loader, criterion, device)
        meter.allreduce()
        val_loss = hvd.allreduce(torch.tensor([loss_sum, float(n)]), op=hvd.Sum, name="val_loss")
        val_loss = (val_loss[0] / val_loss[1]).item()
        if hvd.rank() == 0:
            print(f"fold {cfg.fold} epoch {epoch}: val loss {val_loss:.4f} acc {meter.accuracy():.3f} "
                  f"macro-F1 {meter.macro_f1():.3f} kappa {meter.kappa():.3f}", flush=True)
        if stopper.step(meter.macro_f1(), model, epoch):
            break


if __name__ == "__main__":
    main()
