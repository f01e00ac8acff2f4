import os

import torch
import torch.nn.functional as F
import horovod.torch as hvd

from .checkpoint import save_best, load_weights
from .nets import ECGNet


class Trainer:
    def __init__(self, cfg, fold, dm, device):
        self.cfg, self.fold, self.dm, self.device = cfg, fold, dm, device
        # different augment / dropout stream per rank
        torch.manual_seed(cfg["seed"] + hvd.rank())
        self.model = ECGNet(**cfg["model"]).to(device)
        opt = torch.optim.Adam(self.model.parameters(), lr=cfg["lr"] * hvd.size())
        self.optimizer = hvd.DistributedOptimizer(opt, named_parameters=self.model.named_parameters())
        self.sched = torch.optim.lr_scheduler.CosineAnnealingLR(self.optimizer, T_max=cfg["epochs"])
        self.ckpt_path = os.path.join(cfg["out_dir"], f"fold_{fold}.pt")

    def _train_epoch(self, epoch):
        self.model.train()
        for x, y in self.dm.train_loader(self.fold, epoch, self.cfg["batch_size"]):
            x, y = x.to(self.device), y.to(self.device)
            self.optimizer.zero_grad()
            F.cross_entropy(self.model(x), y).backward()
            self.optimizer.step()
        self.sched.step()

    @torch.no_grad()
    def _evaluate(self):
        self.model.eval()
        correct, total, preds = 0.0, 0.0, {}
        for x, y, idx in self.dm.val_loader(self.fold, 256):
            p = self.model(x.to(self.device)).argmax(1).cpu()
            correct += (p == y).sum().item()
            total += len(y)
            preds.update(zip(idx.tolist(), p.tolist()))
        sums = hvd.allreduce(torch.tensor([correct, total]), op=hvd.Sum, name="val_acc")
        return (sums[0] / sums[1]).item(), preds

    def fit(self):
        best, wait = -1.0, 0
        for epoch in range(self.cfg["epochs"]):
            self._train_epoch(epoch)
            acc, _ = self._evaluate()
            if hvd.rank() == 0:
                print(f"[fold {self.fold}] epoch {epoch:02d} val_acc={acc:.4f}", flush=True)
            if acc > best:
                best, wait = acc, 0
                save_best(self.model, self.optimizer, epoch, acc, self.ckpt_path)
            else:
                wait += 1
                if wait >= self.cfg["patience"]:
                    break
        load_weights(self.model, self.ckpt_path, self.device)
        _, preds = self._evaluate()
        return best, preds
