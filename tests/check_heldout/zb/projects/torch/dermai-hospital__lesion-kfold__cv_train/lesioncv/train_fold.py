import os

import numpy as np
import torch
import torch.nn.functional as F
import horovod.torch as hvd

from .data import fold_loaders
from .dist_utils import save_on_root, summed_confusion, wrap_and_sync
from .folds import patient_folds
from .model import lesion_net


def balanced_accuracy(conf):
    per_class = conf.diag() / conf.sum(1).clamp(min=1)
    return per_class[conf.sum(1) > 0].mean().item()


def run_all_folds(cfg, folds):
    """Body of every Horovod worker (started by horovod.run from cv_train.py)."""
    hvd.init()
    if torch.cuda.is_available():
        torch.cuda.set_device(hvd.local_rank())
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")

    with np.load(cfg.image_npz) as z:
        images, labels, patients = z["images"], z["labels"], z["patients"]
    fold_ids = patient_folds(patients, labels, cfg.n_folds, cfg.seed)

    summary = []
    for fold in folds:
        torch.manual_seed(cfg.seed + fold)
        train_loader, val_loader, sampler = fold_loaders(images, labels, fold_ids, fold, cfg.batch_size,
                                                         hvd.rank(), hvd.size())
        model = lesion_net(cfg.n_classes).to(device)
        optimizer = torch.optim.Adam(model.parameters(), lr=cfg.lr * hvd.size())
        optimizer = wrap_and_sync(model, optimizer)
        best = -1.0
        for epoch in range(cfg.epochs):
            model.train()
            sampler.set_epoch(epoch)
            for x, y in train_loader:
                optimizer.zero_grad()
                F.cross_entropy(model(x.to(device)), y.to(device)).backward()
                optimizer.step()

            model.eval()
            conf = torch.zeros(cfg.n_classes, cfg.n_classes)
            with torch.no_grad():
                for x, y in val_loader:
                    pred = model(x.to(device)).argmax(1).cpu()
                    for t, p in zip(y, pred):
                        conf[t, p] += 1
            bacc = balanced_accuracy(summed_confusion(conf))
            if bacc > best:
                best = bacc
                save_on_root(model.state_dict(), os.path.join(cfg.out_dir, f"fold{fold}", "best.pt"))
            if hvd.rank() == 0:
                print(f"fold {fold} epoch {epoch:2d} bacc {bacc:.4f}", flush=True)
        summary.append({"fold": fold, "bacc": best})
    return summary
