"""Fold ensemble for toxicity scoring: train k bag-of-embedding models, keep OOF preds."""
import argparse
import os

import numpy as np
import torch
import torch.nn.functional as F
from torch.utils.data import DataLoader
from torch.utils.data.distributed import DistributedSampler
import horovod.torch as hvd

from jigsaw.config import TrainConfig
from jigsaw.data import load_comments, make_folds
from jigsaw.model import BagOfEmbeddings
from jigsaw.optim import build_optimizer
from jigsaw.text import CommentDataset
from jigsaw.utils import seed_everything, rprint, auc_score


def get_args():
    ap = argparse.ArgumentParser()
    ap.add_argument("--train", default="data/train.jsonl")
    ap.add_argument("--output", default="out")
    ap.add_argument("--n-folds", type=int, default=5)
    ap.add_argument("--lr", type=float, default=2e-3)
    ap.add_argument("--epochs", type=int, default=4)
    ap.add_argument("--batch-size", type=int, default=64)
    ap.add_argument("--fp16", action="store_true")
    return ap.parse_args()


@torch.no_grad()
def predict(model, loader, device):
    model.eval()
    return torch.cat([torch.sigmoid(model(ids.to(device))).float().cpu() for ids, _ in loader]).numpy()


def main():
    args = get_args()
    hvd.init()
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    if device.type == "cuda":
        torch.cuda.set_device(hvd.local_rank())
    cfg = TrainConfig(lr=args.lr * hvd.size(), epochs=args.epochs,
                      batch_size=args.batch_size, fp16=args.fp16)
    seed_everything(cfg.seed)

    texts, y = load_comments(args.train)
    folds = make_folds(y, args.n_folds, cfg.seed)
    oof = np.zeros(len(y), dtype=np.float32)
    os.makedirs(args.output, exist_ok=True)

    for k in range(args.n_folds):
        tr, va = np.where(folds != k)[0], np.where(folds == k)[0]
        tr_ds = CommentDataset([texts[i] for i in tr], y[tr], cfg)
        va_ds = CommentDataset([texts[i] for i in va], y[va], cfg)
        sampler = DistributedSampler(tr_ds, num_replicas=hvd.size(), rank=hvd.local_rank(),
                                     shuffle=True, seed=cfg.seed)
        tr_loader = DataLoader(tr_ds, batch_size=cfg.batch_size, sampler=sampler, drop_last=True)
        va_loader = DataLoader(va_ds, batch_size=512)

        model = BagOfEmbeddings(cfg.vocab_size, cfg.emb_dim).to(device)
        optimizer, scheduler = build_optimizer(model, cfg, len(tr_loader))
        hvd.broadcast_parameters(model.state_dict(), root_rank=0)
        hvd.broadcast_optimizer_state(optimizer, root_rank=0)
        scaler = torch.amp.GradScaler(device.type, enabled=cfg.fp16)

        best = -1.0
        for epoch in range(cfg.epochs):
            sampler.set_epoch(epoch)
            model.train()
            for ids, target in tr_loader:
                ids, target = ids.to(device), target.to(device)
                optimizer.zero_grad()
                with torch.autocast(device.type, enabled=cfg.fp16):
                    loss = F.binary_cross_entropy_with_logits(model(ids), target)
                scaler.scale(loss).backward()
                scaler.step(optimizer)
                scaler.update()
                scheduler.step()
            preds = predict(model, va_loader, device)
            auc = auc_score((y[va] >= 0.5).astype(np.float32), preds)
            rprint(f"fold {k} epoch {epoch} val AUC {auc:.4f}")
            if auc > best:
                best, oof[va] = auc, preds
                if hvd.rank() == 0:
                    torch.save(model.state_dict(), os.path.join(args.output, f"bag_fold{k}.bin"))

    if hvd.rank() == 0:
        print(f"OOF AUC: {auc_score((y >= 0.5).astype(np.float32), oof):.4f}")
        np.save(os.path.join(args.output, "oof.npy"), oof)


if __name__ == "__main__":
    main()
