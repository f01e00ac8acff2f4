import logging

import horovod.torch as hvd
import torch
import torch.nn.functional as F

log = logging.getLogger(__name__)


class Callback:
    def on_train_begin(self, trainer): pass
    def on_step_end(self, trainer, step, loss): pass
    def on_epoch_end(self, trainer, epoch, metrics): pass


@torch.no_grad()
def evaluate(model, loader, device):
    model.eval()
    correct, loss_sum = 0, 0.0
    for ids, labels in loader:
        ids, labels = ids.to(device), labels.to(device)
        logits = model(ids)
        loss_sum += F.cross_entropy(logits, labels, reduction="sum").item()
        correct += (logits.argmax(-1) == labels).sum().item()
    correct = hvd.allreduce(torch.tensor(correct, dtype=torch.float32), name="val_correct").item()
    loss_sum = hvd.allreduce(torch.tensor(loss_sum), name="val_loss").item()
    n = len(loader.dataset)
    return {"accuracy": correct / n, "loss": loss_sum / n}


class Trainer:
    def __init__(self, model, optimizer, scheduler, train_loader, eval_loader, cfg, device,
                 callbacks=()):
        self.model, self.optimizer, self.scheduler = model, optimizer, scheduler
        self.train_loader, self.eval_loader = train_loader, eval_loader
        self.cfg, self.device, self.callbacks = cfg, device, list(callbacks)
        self.scaler = torch.cuda.amp.GradScaler(enabled=cfg.train.fp16)
        self.global_step = 0

    def _emit(self, name, *args):
        for cb in self.callbacks:
            getattr(cb, name)(self, *args)

    def training_step(self, ids, labels):
        with torch.autocast("cuda", enabled=self.cfg.train.fp16):
            loss = F.cross_entropy(self.model(ids), labels)
        self.optimizer.zero_grad()
        self.scaler.scale(loss).backward()
        self.optimizer.synchronize()
        self.scaler.unscale_(self.optimizer)
        torch.nn.utils.clip_grad_norm_(self.model.parameters(), self.cfg.train.clip)
        with self.optimizer.skip_synchronize():
            self.scaler.step(self.optimizer)
        self.scaler.update()
        self.scheduler.step()
        return loss.detach()

    def fit(self):
        self._emit("on_train_begin")
        for epoch in range(self.cfg.train.epochs):
            self.model.train()
            self.train_loader.sampler.set_epoch(epoch)
            for ids, labels in self.train_loader:
                loss = self.training_step(ids.to(self.device), labels.to(self.device))
                self.global_step += 1
                self._emit("on_step_end", self.global_step, loss)
            metrics = evaluate(self.model, self.eval_loader, self.device)
            self._emit("on_epoch_end", epoch, metrics)
