import os
import time

import horovod.torch as hvd
import torch

from .data import iterate, load_npz, shard, standardize
from .dist_utils import is_main, log, setup_device
from .metrics import evaluate
from .model import FTTransformer


def train_fn(cfg):
    """Entry point of one Horovod worker (launched by horovod.run)."""
    hvd.init()
    device = setup_device()
    torch.manual_seed(cfg["seed"])

    tr_num, tr_cat, tr_y = load_npz(os.path.join(cfg["data_dir"], "train.npz"))
    va_num, va_cat, va_y = load_npz(os.path.join(cfg["data_dir"], "val.npz"))
    tr_num, va_num = standardize(tr_num, va_num)
    tr_num, tr_cat, tr_y = shard([tr_num, tr_cat, tr_y], hvd.rank(), hvd.size())
    va_num, va_cat, va_y = shard([va_num, va_cat, va_y], hvd.rank(), hvd.size())
    log(f"{hvd.size()} workers, {len(tr_y)} train rows per worker")

    cards = [int(c) for c in cfg["cat_cardinalities"]]
    model = FTTransformer(tr_num.shape[1], cards, cfg["n_classes"], d_token=cfg["d_token"],
                          n_layers=cfg["n_layers"]).to(device)
    lr = cfg["lr"] * hvd.size()
    freeze_epochs = cfg.get("freeze_epochs", 0)
    if freeze_epochs:
        model.freeze_backbone(True)
    params = [p for p in model.parameters() if p.requires_grad]
    optimizer = torch.optim.AdamW(params, lr=lr, weight_decay=cfg["weight_decay"])
    optimizer = hvd.DistributedOptimizer(optimizer, named_parameters=model.named_parameters())
    hvd.broadcast_parameters(model.state_dict(), root_rank=0)
    hvd.broadcast_optimizer_state(optimizer, root_rank=0)

    gen = torch.Generator().manual_seed(cfg["seed"] + hvd.rank())
    best_acc, bad_epochs = 0.0, 0
    for epoch in range(cfg["epochs"]):
        if freeze_epochs and epoch == freeze_epochs:
            # phase 2: fine-tune everything with a smaller lr
            model.freeze_backbone(False)
            optimizer = torch.optim.AdamW(model.parameters(), lr=lr * cfg["finetune_lr_mult"],
                                          weight_decay=cfg["weight_decay"])
            log("backbone unfrozen, lr", lr * cfg["finetune_lr_mult"])
        model.train()
        t0 = time.time()
        for xn, xc, yy in iterate(tr_num, tr_cat, tr_y, cfg["batch_size"], gen):
            xn, xc, yy = xn.to(device), xc.to(device), yy.to(device)
            loss = torch.nn.functional.cross_entropy(model(xn, xc), yy)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
        val_loss, val_acc = evaluate(model, va_num, va_cat, va_y, device)
        log(f"epoch {epoch} val_loss {val_loss:.4f} val_acc {val_acc:.4f} ({time.time() - t0:.1f}s)")
        if val_acc > best_acc:
            best_acc, bad_epochs = val_acc, 0
            if is_main():
                os.makedirs(cfg["out_dir"], exist_ok=True)
                torch.save(model.state_dict(), os.path.join(cfg["out_dir"], "best.pt"))
        else:
            bad_epochs += 1
            if bad_epochs >= cfg["patience"]:
                log("early stop at epoch", epoch)
                break
    return best_acc
