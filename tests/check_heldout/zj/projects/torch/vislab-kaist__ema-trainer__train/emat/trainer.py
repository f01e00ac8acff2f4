import torch
import torch.nn.functional as F


class Trainer:
    def __init__(self, model, optimizer, loader, device, tcfg, hooks=(), scheduler=None,
                 sampler=None, is_master=True):
        self.model, self.optimizer, self.loader = model, optimizer, loader
        self.device, self.scheduler, self.sampler = device, scheduler, sampler
        self.accum_steps = tcfg.accum_steps
        self.grad_clip = tcfg.grad_clip
        self.scaler = torch.cuda.amp.GradScaler(enabled=tcfg.amp and device.type == "cuda")
        self.hooks = sorted(hooks, key=lambda h: h.priority)
        self.is_master = is_master
        self.epoch, self.iter = 0, 0
        self.ema_model, self.metrics, self.outputs = None, {}, {}

    def call_hook(self, name):
        for h in self.hooks:
            getattr(h, name)(self)

    def run(self, start_epoch, max_epochs):
        self.call_hook("before_run")
        for epoch in range(start_epoch, max_epochs):
            self.epoch = epoch
            if self.sampler is not None:
                self.sampler.set_epoch(epoch)
            self.call_hook("before_epoch")
            self.train_one_epoch()
            if self.scheduler is not None:
                self.scheduler.step()
            self.call_hook("after_epoch")
        self.call_hook("after_run")

    def train_one_epoch(self):
        self.model.train()
        n_micro = len(self.loader) // self.accum_steps * self.accum_steps
        self.optimizer.zero_grad()
        for i, (x, y) in enumerate(self.loader):
            if i >= n_micro:
                break
            x, y = x.to(self.device, non_blocking=True), y.to(self.device, non_blocking=True)
            with torch.autocast(self.device.type, enabled=self.scaler.is_enabled()):
                loss = F.cross_entropy(self.model(x), y) / self.accum_steps
            self.scaler.scale(loss).backward()
            if (i + 1) % self.accum_steps:
                continue
            # allreduce has finished after synchronize(); unscale the averaged grads, then step
            self.optimizer.synchronize()
            self.scaler.unscale_(self.optimizer)
            if self.grad_clip > 0:
                torch.nn.utils.clip_grad_norm_(self.model.parameters(), self.grad_clip)
            with self.optimizer.skip_synchronize():
                self.scaler.step(self.optimizer)
            self.scaler.update()
            self.optimizer.zero_grad()
            self.iter += 1
            self.outputs = {"loss": loss.item() * self.accum_steps}
            self.call_hook("after_train_iter")
