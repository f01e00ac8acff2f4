"""Per-process training function, started by horovod.run from main.py."""
import time

import torch
import torch.nn.functional as F
import horovod.torch as hvd

from .data import loaders
from .model import REDCNN
from .ckpt import save_rank0


def _build_optimizer(opt, model):
    base = torch.optim.Adam(model.parameters(), lr=opt.lr * hvd.size() * opt.accum)
    comp = hvd.Compression.fp16 if opt.fp16_allreduce else hvd.Compression.none
    return hvd.DistributedOptimizer(base, named_parameters=model.named_parameters(),
                                    compression=comp,
                                    backward_passes_per_step=opt.accum,
                                    average_aggregated_gradients=True)


def validate(model, loader, dev):
    model.eval()
    tot, nb = 0.0, 0
    with torch.no_grad():
        for noisy, clean in loader:
            tot += F.mse_loss(model(noisy.to(dev)), clean.to(dev)).item()
            nb += 1
    tot = hvd.allreduce(torch.tensor(tot), op=hvd.Sum, name="val_mse").item()
    return tot / max(nb, 1)


def train_fn(opt):
    hvd.init()
    torch.manual_seed(opt.seed)
    cuda = torch.cuda.is_available()
    if cuda:
        torch.cuda.set_device(hvd.local_rank())
    dev = torch.device("cuda" if cuda else "cpu")
    rank, size = hvd.rank(), hvd.size()

    train_loader, val_loader, sampler = loaders(opt, rank, size)
    model = REDCNN().to(dev)
    optimizer = _build_optimizer(opt, model)
    hvd.broadcast_parameters(model.state_dict(), root_rank=0)
    hvd.broadcast_optimizer_state(optimizer, root_rank=0)
    scaler = torch.cuda.amp.GradScaler(enabled=opt.amp and cuda)

    history = []
    for epoch in range(opt.epochs):
        model.train()
        sampler.set_epoch(epoch)
        t0 = time.time()
        for i, (noisy, clean) in enumerate(train_loader):
            with torch.autocast("cuda", enabled=opt.amp and cuda):
                loss = F.mse_loss(model(noisy.to(dev)), clean.to(dev))
            scaler.scale(loss / opt.accum).backward()
            if (i + 1) % opt.accum == 0:
                optimizer.synchronize()
                scaler.unscale_(optimizer)
                torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
                with optimizer.skip_synchronize():
                    scaler.step(optimizer)
                scaler.update()
                optimizer.zero_grad()
        ips = len(train_loader) * opt.batch_size / (time.time() - t0)
        val = validate(model, val_loader, dev)
        if rank == 0:
            print(f"[{epoch}] train {loss.item():.5f} val mse {val:.5f} "
                  f"{ips:.0f} patches/s/rank ({ips * size:.0f} total)")
        history.append(val)
        save_rank0(rank, opt, model, optimizer, epoch)
    return history
