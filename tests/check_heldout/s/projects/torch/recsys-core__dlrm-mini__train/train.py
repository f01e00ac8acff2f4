"""DLRM-mini on pre-processed Criteo parts, data-parallel with Horovod.

    horovodrun -np 4 python train.py --config configs/criteo_small.json
"""
import argparse
import json
import os

import numpy as np
import torch
import torch.nn.functional as F
import horovod.torch as hvd

from dlrm import DLRM
from dlrm.data import make_loader
from dlrm.metrics import logloss, roc_auc
from dlrm.optim import build_optimizers


@torch.no_grad()
def evaluate(model, loader, device):
    model.eval()
    ys, ps = [], []
    for dense, cat, y in loader:
        ps.append(torch.sigmoid(model(dense.to(device), cat.to(device))).cpu().numpy())
        ys.append(y.numpy())
    ys, ps = np.concatenate(ys), np.concatenate(ps)
    return roc_auc(ys, ps), logloss(ys, ps)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--config", default="configs/criteo_small.json")
    args = ap.parse_args()
    with open(args.config) as f:
        cfg = json.load(f)

    hvd.init()
    if torch.cuda.is_available():
        torch.cuda.set_device(hvd.local_rank())
        device = torch.device("cuda")
    else:
        device = torch.device("cpu")
    torch.manual_seed(42)

    dcfg = cfg["data"]
    train_loader = make_loader(dcfg["train_glob"], dcfg["batch_size"], hvd.rank(), hvd.size(), train=True)
    test_loader = make_loader(dcfg["test_glob"], 8192, hvd.rank(), hvd.size(), train=False)
    # parts differ a little in size: every worker runs the same number of steps
    steps = int(hvd.allreduce(torch.tensor(len(train_loader)), op=hvd.Min, name="steps"))

    model = DLRM(**cfg["model"]).to(device)
    dense_opt, sparse_opt = build_optimizers(model, cfg["optim"], hvd.size())
    hvd.broadcast_parameters(model.state_dict(), root_rank=0)
    hvd.broadcast_optimizer_state(dense_opt, root_rank=0)
    hvd.broadcast_optimizer_state(sparse_opt, root_rank=0)

    for epoch in range(cfg["train"]["epochs"]):
        model.train()
        for step, (dense, cat, y) in enumerate(train_loader):
            if step == steps:
                break
            dense_opt.zero_grad()
            sparse_opt.zero_grad()
            logits = model(dense.to(device), cat.to(device))
            loss = F.binary_cross_entropy_with_logits(logits, y.to(device))
            loss.backward()
            dense_opt.step()
            sparse_opt.step()
            if hvd.rank() == 0 and step % cfg["train"]["log_every"] == 0:
                print(f"epoch {epoch} step {step} loss {loss.item():.4f}", flush=True)

        auc, ll = evaluate(model, test_loader, device)
        if hvd.rank() == 0:
            print(f"epoch {epoch}: test AUC {auc:.4f} logloss {ll:.4f}", flush=True)
            os.makedirs(os.path.dirname(cfg["train"]["ckpt"]), exist_ok=True)
            torch.save({"epoch": epoch, "model": model.state_dict()}, cfg["train"]["ckpt"])


if __name__ == "__main__":
    main()
