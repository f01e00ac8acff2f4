import os
import time

import torch
import torch.nn.functional as F
import horovod.torch as hvd

from . import data, models
from .utils import init_distributed, allreduce_mean, dump_json


def _loss(task, out, y):
    if task == "binary":
        return F.binary_cross_entropy_with_logits(out, y)
    return F.mse_loss(out, y)


def train_fn(opts):
    """Runs on every horovod process (launched from run.py through horovod.run)."""
    device = init_distributed(seed=0)
    df, num_cols, cat_cols = data.load_frame(opts["csv"], opts["target"])
    train_loader, valid_loader, d_in = data.shard_loaders(
        df, num_cols, cat_cols, opts["target"], hvd.rank(), hvd.size(), opts["batch_size"])

    model = models.build(opts["model"], d_in, opts["hidden"], opts["dropout"]).to(device)
    opt = torch.optim.AdamW(model.parameters(), lr=opts["lr"] * hvd.size(), weight_decay=1e-5)
    opt = hvd.DistributedOptimizer(opt, named_parameters=model.named_parameters())
    hvd.broadcast_parameters(model.state_dict(), root_rank=0)
    hvd.broadcast_optimizer_state(opt, root_rank=0)

    best, best_state, wait = float("inf"), None, 0
    history = []
    for epoch in range(opts["epochs"]):
        model.train()
        t0 = time.time()
        for x, y in train_loader:
            x, y = x.to(device), y.to(device)
            opt.zero_grad()
            loss = _loss(opts["task"], model(x), y)
            loss.backward()
            opt.step()

        # every worker scores the whole validation split
        model.eval()
        tot, n = 0.0, 0
        with torch.no_grad():
            for x, y in valid_loader:
                tot += _loss(opts["task"], model(x.to(device)), y.to(device)).item() * len(y)
                n += len(y)
        val = allreduce_mean(tot / n, "val_loss")
        rmse = val ** 0.5 if opts["task"] == "regression" else val
        history.append({"epoch": epoch, "valid": rmse, "sec": time.time() - t0})
        if rmse < best:
            best, wait = rmse, 0
            best_state = {k: v.detach().cpu().clone() for k, v in model.state_dict().items()}
        else:
            wait += 1
            if wait >= opts["patience"]:
                break

    if hvd.rank() == 0:
        os.makedirs(opts["out"], exist_ok=True)
        torch.save(best_state, os.path.join(opts["out"], f"{opts['model']}_best.pt"))
        dump_json(history, os.path.join(opts["out"], "history.json"))
    return best
