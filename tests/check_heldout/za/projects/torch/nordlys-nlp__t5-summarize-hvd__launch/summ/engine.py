"""train_fn runs on every worker (started by launch.py through horovod.run)."""
import os

import horovod.torch as hvd
import torch
import torch.nn.functional as F

from .data import IGNORE, loaders
from .model import Seq2Seq


def token_loss(model, src, dec_in, labels):
    logits = model(src, dec_in)
    total = F.cross_entropy(logits.flatten(0, 1), labels.flatten(), ignore_index=IGNORE, reduction="sum")
    return total, labels.ne(IGNORE).sum()


def save_on_master(model, path):
    if hvd.rank() == 0:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        torch.save(model.state_dict(), path)


def train_fn(cfg):
    hvd.init()
    torch.manual_seed(cfg["seed"])
    device = torch.device("cpu")
    if torch.cuda.is_available():
        torch.cuda.set_device(hvd.local_rank())
        device = torch.device("cuda")

    train_dl, valid_dl = loaders(cfg, hvd.rank(), hvd.size())
    model = Seq2Seq(cfg["vocab_size"], cfg["d_model"], cfg["layers"], cfg["max_src"]).to(device)
    base = torch.optim.Adam(model.parameters(), lr=cfg["lr"] * hvd.size())
    opt = hvd.DistributedOptimizer(base, named_parameters=model.named_parameters(),
                                   backward_passes_per_step=cfg["accum_steps"])
    hvd.broadcast_parameters(model.state_dict(), root_rank=0)
    hvd.broadcast_optimizer_state(opt, root_rank=0)
    warm = cfg["warmup_steps"]
    sched = torch.optim.lr_scheduler.LambdaLR(opt, lambda s: min(1.0, (s + 1) / warm))

    usable = len(train_dl) // cfg["accum_steps"] * cfg["accum_steps"]
    for epoch in range(cfg["epochs"]):
        model.train()
        train_dl.sampler.set_epoch(epoch)
        opt.zero_grad()
        for i, (src, dec_in, labels) in enumerate(train_dl):
            if i >= usable:
                break
            total, ntok = token_loss(model, src.to(device), dec_in.to(device), labels.to(device))
            (total / ntok.clamp(min=1) / cfg["accum_steps"]).backward()
            if (i + 1) % cfg["accum_steps"] == 0:
                opt.synchronize()
                torch.nn.utils.clip_grad_norm_(model.parameters(), cfg["clip"])
                with opt.skip_synchronize():
                    opt.step()
                sched.step()
                opt.zero_grad()

        model.eval()
        sums = torch.zeros(2, dtype=torch.float64)
        with torch.no_grad():
            for src, dec_in, labels in valid_dl:
                total, ntok = token_loss(model, src.to(device), dec_in.to(device), labels.to(device))
                sums += torch.tensor([total.item(), ntok.item()], dtype=torch.float64)
        sums = hvd.allreduce(sums, op=hvd.Sum, name="valid_tokens")
        val_loss = (sums[0] / sums[1]).item()
        if hvd.rank() == 0:
            print(f"epoch {epoch}: valid token loss {val_loss:.4f}", flush=True)
        save_on_master(model, os.path.join(cfg["output_dir"], f"epoch{epoch}.pt"))
    return val_loss
