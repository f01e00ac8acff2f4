import os

import torch
import torch.nn.functional as F
import horovod.torch as hvd
from torch.optim.swa_utils import SWALR, AveragedModel

from .data import worker_loaders
from .lr_finder import lr_range_test
from .model import ResMLP


class Trainer:
    def __init__(self, cfg):
        self.cfg = cfg
        hvd.init()
        if torch.cuda.is_available():
            torch.cuda.set_device(hvd.local_rank())
        self.device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
        self.is_root = hvd.rank() == 0
        torch.manual_seed(cfg.seed)
        per_worker = cfg.global_batch_size // hvd.size()
        self.train_dl, self.val_dl, self.full_val_dl, self.full_train = worker_loaders(
            cfg.data, hvd.rank(), hvd.size(), per_worker, cfg.seed)
        n_in, n_out = self.full_train.tensors[0].shape[1], int(self.full_train.tensors[1].max()) + 1
        self.model = ResMLP(n_in, n_out, cfg.hidden, cfg.dropout).to(self.device)

    def pick_lr(self):
        lr = self.cfg.base_lr
        if self.cfg.find_lr and self.is_root:
            lr = lr_range_test(self.model, self.full_train, self.cfg.global_batch_size)
            print(f"lr finder: {lr:.2e}", flush=True)
        return hvd.broadcast_object(lr, root_rank=0, name="picked_lr")

    @torch.no_grad()
    def evaluate(self, model, loader):
        model.eval()
        tot, correct, n = 0.0, 0, 0
        for x, y in loader:
            out = model(x.to(self.device)).cpu()
            tot += F.cross_entropy(out, y, reduction="sum").item()
            correct += (out.argmax(1) == y).sum().item()
            n += len(y)
        return tot / n, correct / n

    def fit(self):
        cfg = self.cfg
        lr = self.pick_lr()
        opt = torch.optim.Adam(self.model.parameters(), lr=lr, weight_decay=1e-5)
        opt = hvd.DistributedOptimizer(opt, named_parameters=self.model.named_parameters())
        hvd.broadcast_parameters(self.model.state_dict(), root_rank=0)
        hvd.broadcast_optimizer_state(opt, root_rank=0)
        sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=cfg.swa_start)
        swa_model, swa_sched = AveragedModel(self.model), SWALR(opt, swa_lr=cfg.swa_lr, anneal_epochs=3)

        best, bad, stop = float("inf"), 0, False
        for epoch in range(cfg.max_epochs):
            self.model.train()
            for x, y in self.train_dl:
                opt.zero_grad()
                F.cross_entropy(self.model(x.to(self.device)), y.to(self.device)).backward()
                opt.step()
            if epoch >= cfg.swa_start:
                swa_model.update_parameters(self.model)
                swa_sched.step()
            else:
                sched.step()
            # equal shards -> the mean of per-worker means is the global mean
            loss, acc = self.evaluate(self.model, self.val_dl)
            loss = hvd.allreduce(torch.tensor(loss), name="val_loss").item()
            acc = hvd.allreduce(torch.tensor(acc), name="val_acc").item()
            if self.is_root:
                print(f"epoch {epoch}: val loss {loss:.4f} acc {acc:.4f}", flush=True)
                if loss < best - 1e-4:
                    best, bad = loss, 0
                    self.save(self.model.state_dict(), "best.pt")
                else:
                    bad += 1
                stop = bad >= cfg.patience and epoch < cfg.swa_start
            if hvd.broadcast_object(stop, root_rank=0, name="early_stop"):
                break

        result = None
        if self.is_root:
            if epoch >= cfg.swa_start:
                self.save(swa_model.module.state_dict(), "swa.pt")
                result = self.evaluate(swa_model.module, self.full_val_dl)
                print(f"SWA on the full validation set: loss {result[0]:.4f} acc {result[1]:.4f}", flush=True)
        return result

    def save(self, state, name):
        os.makedirs(self.cfg.out_dir, exist_ok=True)
        torch.save(state, os.path.join(self.cfg.out_dir, name))
