"""A small Lightning-like Trainer (hooks + callbacks), written for the U-Net chapter."""
import os

import horovod.torch as hvd
import torch
import torch.nn.functional as F

from .model import dice_score


class Trainer:
    def __init__(self, model, cfg, callbacks=()):
        self.model, self.cfg = model, cfg
        self.callbacks = list(callbacks)
        self.device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
        self.model.to(self.device)
        self.is_chief = hvd.rank() == 0
        self.should_stop = False
        self.epoch = 0
        self.start_epoch = 0
        self.optimizer = self.configure_optimizers()

    # -- hooks a subclass may override -------------------------------------------------------
    def configure_optimizers(self):
        opt = torch.optim.AdamW(self.model.parameters(), lr=self.cfg.lr * hvd.size(),
                                weight_decay=self.cfg.weight_decay)
        return hvd.DistributedOptimizer(opt, named_parameters=self.model.named_parameters())

    def training_step(self, batch):
        x, y = (t.to(self.device) for t in batch)
        return F.binary_cross_entropy_with_logits(self.model(x), y)

    # -- internals ----------------------------------------------------------------------------
    def _call(self, hook, **kw):
        for cb in self.callbacks:
            getattr(cb, hook)(self, **kw)

    def _last_path(self):
        return os.path.join(self.cfg.out_dir, "last.pt")

    def resume(self):
        state = None
        if self.is_chief and os.path.exists(self._last_path()):
            state = torch.load(self._last_path(), map_location="cpu")
        state = hvd.broadcast_object(state, root_rank=0, name="resume_state")
        if state is not None:
            self.model.load_state_dict(state["model"])
            self.optimizer.load_state_dict(state["optimizer"])
            self.start_epoch = state["epoch"] + 1

    def save_last(self):
        os.makedirs(self.cfg.out_dir, exist_ok=True)
        torch.save({"model": self.model.state_dict(), "optimizer": self.optimizer.state_dict(),
                    "epoch": self.epoch}, self._last_path())

    def _mean(self, total, count, name):
        t = hvd.allreduce(torch.tensor([total, float(count)], dtype=torch.float64), op=hvd.Sum, name=name)
        return (t[0] / t[1]).item()

    def fit(self, train_loader, val_loader):
        self.resume()
        hvd.broadcast_parameters(self.model.state_dict(), root_rank=0)
        hvd.broadcast_optimizer_state(self.optimizer, root_rank=0)
        self._call("on_fit_start")
        for epoch in range(self.start_epoch, self.cfg.epochs):
            self.epoch = epoch
            train_loader.sampler.set_epoch(epoch)
            logs = {"train_loss": self.train_epoch(train_loader)}
            logs.update(self.validate(val_loader))
            self._call("on_epoch_end", logs=logs)
            if self.is_chief:
                self.save_last()
                print(f"epoch {epoch}: " + " ".join(f"{k}={v:.4f}" for k, v in logs.items()), flush=True)
            if self.should_stop:
                break
        self._call("on_fit_end")

    def train_epoch(self, loader):
        self.model.train()
        total, n = 0.0, 0
        for batch in loader:
            self.optimizer.zero_grad()
            loss = self.training_step(batch)
            loss.backward()
            self.optimizer.step()
            total, n = total + loss.item(), n + 1
        return self._mean(total, n, "train_loss")

    @torch.no_grad()
    def validate(self, loader):
        self.model.eval()
        loss_sum, dice_sum, count = 0.0, 0.0, 0
        for x, y in loader:
            x, y = x.to(self.device), y.to(self.device)
            logits = self.model(x)
            loss = F.binary_cross_entropy_with_logits(logits, y, reduction="none").mean(dim=(1, 2, 3))
            loss_sum += loss.sum().item()
            dice_sum += dice_score(logits, y).sum().item()
            count += x.shape[0]
        t = hvd.allreduce(torch.tensor([loss_sum, dice_sum, float(count)], dtype=torch.float64),
                          op=hvd.Sum, name="val_sums")
        return {"val_loss": (t[0] / t[2]).item(), "val_dice": (t[1] / t[2]).item()}
