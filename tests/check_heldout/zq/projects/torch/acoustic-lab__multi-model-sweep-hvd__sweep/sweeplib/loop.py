import logging
import time

import torch
import torch.nn.functional as F
import horovod.torch as hvd

log = logging.getLogger(__name__)


def scaled_lr(base_lr, per_worker_batch, reference_batch):
    """Linear scaling rule w.r.t. the global batch of the whole job."""
    return base_lr * per_worker_batch * hvd.size() / reference_batch


def fit_model(model, spec, data, reference_batch):
    name = spec["name"]
    device = next(model.parameters()).device
    lr = scaled_lr(spec["lr"], data.batch_size, reference_batch)
    opt = torch.optim.Adam(model.parameters(), lr=lr)
    # prefix the tensor names so that consecutive models never share allreduce names
    opt = hvd.DistributedOptimizer(opt, named_parameters=[(f"{name}/{k}", v) for k, v in model.named_parameters()])
    hvd.broadcast_parameters(model.state_dict(), root_rank=0)
    hvd.broadcast_optimizer_state(opt, root_rank=0)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=lr, total_steps=spec["epochs"] * len(data.loaders()[0]))

    best = {"val_acc": 0.0, "epoch": -1}
    for epoch in range(spec["epochs"]):
        train_loader, valid_loader, sampler = data.loaders()
        sampler.set_epoch(epoch)
        model.train()
        t0 = time.time()
        for x, y in train_loader:
            x, y = x.to(device), y.to(device)
            opt.zero_grad()
            F.cross_entropy(model(x), y).backward()
            opt.step()
            sched.step()

        model.eval()
        sums = torch.zeros(3)
        with torch.no_grad():
            for x, y in valid_loader:
                logits = model(x.to(device)).cpu()
                sums += torch.tensor([F.cross_entropy(logits, y, reduction="sum").item(),
                                      (logits.argmax(1) == y).sum().item(), len(y)])
        sums = hvd.allreduce(sums, op=hvd.Sum, name=f"{name}.val.{epoch}")
        val_loss, val_acc = (sums[0] / sums[2]).item(), (sums[1] / sums[2]).item()
        log.info("%s epoch %d val_loss %.4f val_acc %.4f (%.1fs)", name, epoch, val_loss, val_acc, time.time() - t0)
        if val_acc > best["val_acc"]:
            best = {"val_acc": val_acc, "val_loss": val_loss, "epoch": epoch}
    return best
