import os

import numpy as np
import pandas as pd
import torch
import torch.nn.functional as F
import horovod.torch as hvd

from .metrics import AverageMeter, auc_score


def train_one_epoch(model, loader, optimizer, device, lambda_sparse=1e-4):
    model.train()
    meter = AverageMeter()
    for x_num, x_cat, y in loader:
        x_num, x_cat, y = x_num.to(device), x_cat.to(device), y.to(device)
        optimizer.zero_grad()
        logits, m = model(x_num, x_cat)
        loss = F.binary_cross_entropy_with_logits(logits, y)
        loss = loss + lambda_sparse * (-(m * torch.log(m + 1e-15)).sum(1).mean())
        loss.backward()
        optimizer.step()
        meter.update(loss.item(), len(y))
    return meter.avg


@torch.no_grad()
def validate(model, loader, device):
    model.eval()
    preds, ys, masks = [], [], []
    for x_num, x_cat, y in loader:
        logits, m = model(x_num.to(device), x_cat.to(device))
        preds.append(torch.sigmoid(logits).cpu().numpy())
        ys.append(y.numpy())
        masks.append(m.cpu().numpy())
    preds, ys = np.concatenate(preds), np.concatenate(ys)
    return auc_score(ys, preds), np.concatenate(masks).mean(0)


class EarlyStopping:
    def __init__(self, patience):
        self.patience = patience
        self.best = -np.inf
        self.counter = 0

    def step(self, score):
        if score > self.best:
            self.best, self.counter = score, 0
            return True, False
        self.counter += 1
        return False, self.counter >= self.patience


def run_training(args, model, optimizer, train_loader, valid_loader, train_sampler, device, feature_names):
    stopper = EarlyStopping(args.patience)
    for epoch in range(args.epochs):
        train_sampler.set_epoch(epoch)
        tr_loss = train_one_epoch(model, train_loader, optimizer, device)
        val_auc, importance = validate(model, valid_loader, device)
        improved, stop = stopper.step(val_auc)
        if hvd.rank() == 0:
            print(f"[fold {args.fold}] ep {epoch} loss {tr_loss:.5f} val_auc {val_auc:.5f}"
                  f"{' *' if improved else ''}", flush=True)
            if improved:
                os.makedirs(args.output_dir, exist_ok=True)
                torch.save(model.state_dict(), os.path.join(args.output_dir, f"tabnet_fold{args.fold}.pth"))
                if args.save_importance:
                    pd.Series(importance, index=feature_names).sort_values(ascending=False).to_csv(
                        os.path.join(args.output_dir, f"importance_fold{args.fold}.csv"))
        if stop:
            break
    return stopper.best
