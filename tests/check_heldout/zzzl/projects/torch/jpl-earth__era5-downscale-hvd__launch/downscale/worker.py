"""The function horovod.run ships to every worker process."""
import time

import torch
import torch.nn.functional as F
import horovod.torch as hvd

from downscale import checkpointing
from downscale.data import loaders
from downscale.dist import get_device, mean_over_ranks
from downscale.model import SRNet


class Trainer:
    def __init__(self, model, optimizer, scheduler, device):
        self.model, self.optimizer, self.scheduler, self.device = model, optimizer, scheduler, device

    def step(self, c, f):
        self.optimizer.zero_grad()
        loss = F.l1_loss(self.model(c), f)
        loss.backward()
        self.optimizer.step()
        self.scheduler.step()
        return loss.item()

    @torch.no_grad()
    def valid(self, loader):
        self.model.eval()
        err, n = 0.0, 0
        for c, f in loader:
            c, f = c.to(self.device), f.to(self.device)
            err += F.mse_loss(self.model(c), f).item()
            n += 1
        self.model.train()
        return err / max(n, 1)


def train(cfg):
    rank, size = hvd.rank(), hvd.size()
    device = get_device()
    torch.manual_seed(cfg["seed"])

    train_loader, valid_loader = loaders(cfg, rank, size)
    model = SRNet(len(cfg["variables"]), cfg["channels"], cfg["n_blocks"], cfg["factor"]).to(device)

    base_opt = torch.optim.Adam(model.parameters(), lr=cfg["lr"] * size)
    start_epoch = checkpointing.try_resume(cfg, model, base_opt)
    hvd.broadcast_parameters(model.state_dict(), root_rank=0)
    hvd.broadcast_optimizer_state(base_opt, root_rank=0)
    start_epoch = hvd.broadcast_object(start_epoch, root_rank=0, name="start_epoch")

    dist_opt = hvd.DistributedOptimizer(base_opt, named_parameters=model.named_parameters())
    sched = torch.optim.lr_scheduler.OneCycleLR(base_opt, max_lr=cfg["lr"] * size,
                                                total_steps=cfg["epochs"] * len(train_loader))
    trainer = Trainer(model, base_opt, sched, device)

    for epoch in range(start_epoch, cfg["epochs"]):
        tic = time.time()
        for c, f in train_loader:
            loss = trainer.step(c.to(device), f.to(device))
        if epoch % cfg["val_every"] == 0:
            rmse = mean_over_ranks(trainer.valid(valid_loader), "val_mse") ** 0.5
            if rank == 0:
                print("epoch %d  train l1 %.4f  valid rmse %.4f  %.0fs" % (epoch, loss, rmse, time.time() - tic),
                      flush=True)
        checkpointing.save(cfg, epoch, model, base_opt)
    return rank
