import torch
from torch import nn
import horovod.torch as hvd


class LSTMForecaster(nn.Module):
    def __init__(self, n_assets, hidden=64):
        super().__init__()
        self.lstm = nn.LSTM(n_assets, hidden, batch_first=True)
        self.drop = nn.Dropout(0.2)
        self.out = nn.Linear(hidden, n_assets)

    def forward(self, x):
        h, _ = self.lstm(x)
        return self.out(self.drop(h[:, -1]))


class PeriodTrainer:
    """Re-fits a fresh model for every walk-forward period."""

    def __init__(self, lr, device, epochs=5):
        self.lr = lr
        self.device = device
        self.epochs = epochs
        self.loss_fn = nn.MSELoss()
        self._synced = False

    def reset(self, model):
        self.model = model.to(self.device)
        opt = torch.optim.AdamW(self.model.parameters(), lr=self.lr, weight_decay=1e-4)
        self.optimizer = hvd.DistributedOptimizer(opt, named_parameters=self.model.named_parameters())

    def _sync(self):
        # only needed once: afterwards all workers hold identical weights
        if not self._synced:
            hvd.broadcast_parameters(self.model.state_dict(), root_rank=0)
            hvd.broadcast_optimizer_state(self.optimizer, root_rank=0)
            self._synced = True

    def fit(self, train_loader, sampler):
        self._sync()
        for epoch in range(self.epochs):
            sampler.set_epoch(epoch)
            self.model.train()
            for x, y in train_loader:
                x, y = x.to(self.device), y.to(self.device)
                self.optimizer.zero_grad()
                loss = self.loss_fn(self.model(x), y)
                loss.backward()
                self.optimizer.step()

    @torch.no_grad()
    def evaluate(self, loader):
        self.model.eval()
        stats = torch.zeros(3, dtype=torch.float64)
        for x, y in loader:
            p = self.model(x.to(self.device)).cpu()
            stats[0] += ((p - y) ** 2).sum()
            stats[1] += (torch.sign(p) == torch.sign(y)).sum()
            stats[2] += y.numel()
        stats = hvd.allreduce(stats, op=hvd.Sum, name="wf_eval")
        return {"mse": (stats[0] / stats[2]).item(), "hit_rate": (stats[1] / stats[2]).item()}
