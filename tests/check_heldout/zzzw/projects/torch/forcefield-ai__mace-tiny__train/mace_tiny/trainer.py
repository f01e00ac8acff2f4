import logging

import torch
import horovod.torch as hvd

from .data import batches
from .tools import reduce_sum

logger = logging.getLogger("mace_tiny")


class Trainer:
    def __init__(self, model, opts, device):
        self.model, self.opts, self.device = model, opts, device
        self.optimizer = self.build_optimizer()
        hvd.broadcast_parameters(self.model.state_dict(), root_rank=0)
        hvd.broadcast_optimizer_state(self.optimizer, root_rank=0)
        self.ema = None
        if opts.ema:
            self.ema = torch.optim.swa_utils.AveragedModel(
                model, multi_avg_fn=torch.optim.swa_utils.get_ema_multi_avg_fn(opts.ema_decay))
        self.scheduler = torch.optim.lr_scheduler.ExponentialLR(self.optimizer, gamma=0.998)

    def build_optimizer(self):
        decay, no_decay = [], []
        for name, p in self.model.named_parameters():
            (no_decay if "embedding" in name or name.endswith("bias") else decay).append(p)
        base = torch.optim.Adam([{"params": decay, "weight_decay": 5e-7},
                                 {"params": no_decay, "weight_decay": 0.0}],
                                lr=self.opts.lr * hvd.size(), amsgrad=True)
        return hvd.DistributedOptimizer(base, named_parameters=self.model.named_parameters())

    def train_epoch(self, configs, loss_fn, epoch):
        self.model.train()
        for batch in batches(configs, self.opts.batch_size, shuffle=True, seed=epoch):
            batch = {k: v.to(self.device) for k, v in batch.items()}
            self.optimizer.zero_grad()
            out = self.model(batch, training=True)
            loss = loss_fn(out, batch)
            loss.backward()
            self.optimizer.synchronize()
            torch.nn.utils.clip_grad_norm_(self.model.parameters(), self.opts.clip_grad)
            with self.optimizer.skip_synchronize():
                self.optimizer.step()
            if self.ema is not None:
                self.ema.update_parameters(self.model)
        self.scheduler.step()
        return loss.item()

    def evaluate(self, configs):
        model = self.ema.module if self.ema is not None else self.model
        model.eval()
        e_abs = f_abs = n_cfg = n_f = 0.0
        for batch in batches(configs, self.opts.batch_size):
            batch = {k: v.to(self.device) for k, v in batch.items()}
            out = model(batch, training=False)
            e_abs += ((out["energy"].detach() - batch["energy"]).abs() / batch["num_atoms"]).sum().item()
            f_abs += (out["forces"].detach() - batch["forces"]).abs().sum().item()
            n_cfg += len(batch["num_atoms"])
            n_f += batch["forces"].numel()
        e_abs, f_abs, n_cfg, n_f = reduce_sum([e_abs, f_abs, n_cfg, n_f])
        return {"mae_e_per_atom": e_abs / n_cfg, "mae_f": f_abs / n_f}
