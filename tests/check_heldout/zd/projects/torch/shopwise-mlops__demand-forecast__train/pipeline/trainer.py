import os

import torch
import torch.nn as nn
import horovod.torch as hvd


class Forecaster(nn.Module):
    def __init__(self, horizon, hidden, layers):
        super().__init__()
        self.rnn = nn.GRU(1, hidden, num_layers=layers, batch_first=True)
        self.head = nn.Linear(hidden, horizon)

    def forward(self, x):
        out, _ = self.rnn(x.unsqueeze(-1))
        return self.head(out[:, -1])


class Trainer:
    """Owns the optimisation loop; the entry point owns config, data and the optimizer choice."""

    def __init__(self, model, optimizer, device, output_dir, patience):
        self.model, self.device = model, device
        hvd.broadcast_parameters(model.state_dict(), root_rank=0)
        hvd.broadcast_optimizer_state(optimizer, root_rank=0)
        self.optimizer = hvd.DistributedOptimizer(optimizer, named_parameters=model.named_parameters())
        self.loss_fn = nn.L1Loss()
        self.output_dir, self.patience = output_dir, patience
        self.best, self.bad_epochs = float("inf"), 0

    def train_epoch(self, loader):
        self.model.train()
        for x, y in loader:
            x, y = x.to(self.device), y.to(self.device)
            self.optimizer.zero_grad()
            loss = self.loss_fn(self.model(x), y)
            loss.backward()
            self.optimizer.step()

    @torch.no_grad()
    def validate(self, loader):
        # every rank scores the full validation split, so the numbers agree across ranks
        self.model.eval()
        total, n = 0.0, 0
        for x, y in loader:
            x, y = x.to(self.device), y.to(self.device)
            total += self.loss_fn(self.model(x), y).item() * len(y)
            n += len(y)
        return total / max(n, 1)

    def maybe_checkpoint(self, epoch, val_mae):
        """Returns True when training should stop (no improvement for `patience` epochs)."""
        if val_mae < self.best:
            self.best, self.bad_epochs = val_mae, 0
            if hvd.rank() == 0:
                os.makedirs(self.output_dir, exist_ok=True)
                torch.save({"epoch": epoch, "model": self.model.state_dict(), "val_mae": val_mae},
                           os.path.join(self.output_dir, "model_best.pt"))
        else:
            self.bad_epochs += 1
        return self.bad_epochs >= self.patience
