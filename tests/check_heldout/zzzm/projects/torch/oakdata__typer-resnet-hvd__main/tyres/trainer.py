import torch
import torch.nn.functional as F
import horovod.torch as hvd


def _avg(value, name):
    return hvd.allreduce(torch.tensor(float(value)), name=name).item()


class Trainer:
    def __init__(self, model, optimizer, scheduler, cfg, amp=False):
        self.model = model
        self.optimizer = optimizer
        self.scheduler = scheduler
        self.cfg = cfg
        self.amp = amp
        self.scaler = torch.cuda.amp.GradScaler() if amp else None
        self.device = next(model.parameters()).device

    def fit_epoch(self, loader, epoch):
        self.model.train()
        running, seen = 0.0, 0
        for x, y in loader:
            x, y = x.to(self.device, non_blocking=True), y.to(self.device, non_blocking=True)
            self.optimizer.zero_grad(set_to_none=True)
            if self.amp:
                with torch.autocast("cuda", dtype=torch.float16):
                    loss = F.cross_entropy(self.model(x), y)
                self.scaler.scale(loss).backward()
                self.optimizer.synchronize()
                self.scaler.unscale_(self.optimizer)
                with self.optimizer.skip_synchronize():
                    self.scaler.step(self.optimizer)
                self.scaler.update()
            else:
                loss = F.cross_entropy(self.model(x), y)
                loss.backward()
                self.optimizer.step()
            self.scheduler.step()
            running += loss.item()
            seen += 1
        return {"loss": _avg(running / max(seen, 1), "train_loss")}

    @torch.no_grad()
    def evaluate(self, loader):
        self.model.eval()
        loss_sum, correct, n = 0.0, 0, 0
        for x, y in loader:
            x, y = x.to(self.device), y.to(self.device)
            out = self.model(x)
            loss_sum += F.cross_entropy(out, y, reduction="sum").item()
            correct += (out.argmax(1) == y).sum().item()
            n += y.size(0)
        # every rank has the same number of val samples (DistributedSampler pads),
        # so the mean of the per-rank means is the global mean
        return {"loss": _avg(loss_sum / n, "val_loss"), "top1": _avg(correct / n, "val_top1")}
