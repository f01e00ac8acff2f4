import os
import time

import torch
import torch.nn.functional as F
import horovod.torch as hvd


def nt_xent(z1, z2, temperature):
    z = torch.cat([z1, z2], 0)
    n = z1.shape[0]
    sim = z @ z.t() / temperature
    sim.fill_diagonal_(float("-inf"))
    target = torch.cat([torch.arange(n, 2 * n), torch.arange(0, n)]).to(z.device)
    return F.cross_entropy(sim, target)


class Trainer:
    def __init__(self, cfg, model):
        self.cfg = cfg
        self.is_root = hvd.rank() == 0
        self.device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
        self.model = model.to(self.device)
        # linear scaling rule on the images consumed per optimizer step
        images_per_step = cfg.batch_size * cfg.accum * hvd.size()
        lr = cfg.base_lr * images_per_step / 256
        opt = torch.optim.SGD(self.model.parameters(), lr=lr, momentum=cfg.momentum,
                              weight_decay=cfg.weight_decay)
        self.optimizer = hvd.DistributedOptimizer(
            opt, named_parameters=self.model.named_parameters(),
            compression=hvd.Compression.fp16, backward_passes_per_step=cfg.accum)
        self.scaler = torch.amp.GradScaler("cuda", enabled=cfg.amp and torch.cuda.is_available())
        self._sync_initial_state()

    def _sync_initial_state(self):
        hvd.broadcast_parameters(self.model.state_dict(), root_rank=0)
        hvd.broadcast_optimizer_state(self.optimizer, root_rank=0)

    def train_epoch(self, loader):
        self.model.train()
        total, seen = 0.0, 0
        for i, ((x1, x2), _) in enumerate(loader):
            x1, x2 = x1.to(self.device, non_blocking=True), x2.to(self.device, non_blocking=True)
            with torch.autocast(self.device.type, enabled=self.scaler.is_enabled()):
                loss = nt_xent(self.model(x1), self.model(x2), self.cfg.temperature)
            self.scaler.scale(loss / self.cfg.accum).backward()
            if (i + 1) % self.cfg.accum == 0:
                self.optimizer.synchronize()
                self.scaler.unscale_(self.optimizer)
                torch.nn.utils.clip_grad_norm_(self.model.parameters(), self.cfg.clip)
                with self.optimizer.skip_synchronize():
                    self.scaler.step(self.optimizer)
                self.scaler.update()
                self.optimizer.zero_grad()
            total += loss.item()
            seen += 1
        # every rank runs the same number of batches (drop_last), so the mean of means is exact
        return hvd.allreduce(torch.tensor(total / max(seen, 1)), name="train_loss").item()

    def save(self, epoch):
        if not self.is_root:
            return
        path = os.path.join(self.cfg.out, f"ckpt_{epoch:04d}.pt")
        torch.save({"epoch": epoch, "model": self.model.state_dict(),
                    "optimizer": self.optimizer.state_dict()}, path)

    def fit(self, loader, sampler):
        for epoch in range(self.cfg.epochs):
            sampler.set_epoch(epoch)
            t0 = time.time()
            loss = self.train_epoch(loader)
            if self.is_root:
                print(f"epoch {epoch:3d} loss {loss:.4f} ({time.time() - t0:.0f}s)", flush=True)
            if (epoch + 1) % self.cfg.save_every == 0 or epoch + 1 == self.cfg.epochs:
                self.save(epoch)
