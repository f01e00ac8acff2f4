"""A walk-forward trainer refits a fresh model for every period (issue 39, class 1: the work is in the
project's module). Its broadcast sits behind a flag it sets (`if not self._synced: ...; self._synced = True`),
so it runs on the first period only: from the second on, each rank trains its own fresh initialisation
(the model is seeded by rank). Broadcasting on every fit, or setting the flag back when the model is
replaced, is right. Before the rule the broadcast passed as ok.

Written from scratch for these tests: a torch forecasting project with a `wfc` package."""
import pytest

from crash_scripts import Source, check_project

TRAINER = Source('''
    import horovod.torch as hvd
    import torch
    from torch import nn


    class GRUForecaster(nn.Module):
        def __init__(self, n, hidden=32):
            super().__init__()
            self.rnn = nn.GRU(n, hidden, batch_first=True)
            self.out = nn.Linear(hidden, n)

        def forward(self, x):
            h, _ = self.rnn(x)
            return self.out(h[:, -1])


    class WindowTrainer:
        def __init__(self, lr, epochs=3):
            self.lr, self.epochs = lr, epochs
            self.synced = False

        def reset(self, model):
            self.model = model
            opt = torch.optim.Adam(self.model.parameters(), lr=self.lr)
            self.opt = hvd.DistributedOptimizer(opt, named_parameters=self.model.named_parameters())
            #RESET#

        def sync(self):
            #SYNC#

        def fit(self, loader, sampler):
            self.sync()
            for epoch in range(self.epochs):
                sampler.set_epoch(epoch)
                for x, y in loader:
                    self.opt.zero_grad()
                    nn.functional.mse_loss(self.model(x), y).backward()
                    self.opt.step()

        @torch.no_grad()
        def score(self, loader):
            total = torch.zeros(2)
            for x, y in loader:
                total += torch.stack([nn.functional.mse_loss(self.model(x), y, reduction="sum"),
                                      torch.tensor(float(y.numel()))])
            total = hvd.allreduce(total, op=hvd.Sum, name="mse")
            return (total[0] / total[1]).item()
''')

ONCE = '''if not self.synced:
                hvd.broadcast_parameters(self.model.state_dict(), root_rank=0)
                hvd.broadcast_optimizer_state(self.opt, root_rank=0)
                self.synced = True'''
EVERY_FIT = '''hvd.broadcast_parameters(self.model.state_dict(), root_rank=0)
            hvd.broadcast_optimizer_state(self.opt, root_rank=0)'''

MAIN = '''
    """Walk-forward refits per quarter: horovodrun -np 4 python run.py"""
    import argparse

    import horovod.torch as hvd
    import torch
    from torch.utils.data import DataLoader, TensorDataset
    from torch.utils.data.distributed import DistributedSampler

    from wfc.trainer import GRUForecaster, WindowTrainer


    def windows(series, start, stop, lookback):
        x = torch.stack([series[i - lookback:i] for i in range(start, stop)])
        return TensorDataset(x, series[start:stop])


    def main():
        ap = argparse.ArgumentParser()
        ap.add_argument("--lr", type=float, default=1e-3)
        ap.add_argument("--periods", type=int, default=4)
        ap.add_argument("--seed", type=int, default=11)
        args = ap.parse_args()
        hvd.init()
        torch.set_num_threads(1)
        torch.manual_seed(args.seed + hvd.rank())
        series = torch.randn(3000, 5)
        trainer = WindowTrainer(lr=args.lr * hvd.size())
        for p in range(args.periods):
            start, stop = 500 + 500 * p, 1000 + 500 * p
            train = windows(series, 60, start, 60)
            sampler = DistributedSampler(train, num_replicas=hvd.size(), rank=hvd.rank())
            trainer.reset(GRUForecaster(5))
            trainer.fit(DataLoader(train, batch_size=64, sampler=sampler), sampler)
            test = windows(series, start, stop, 60)
            part = DistributedSampler(test, num_replicas=hvd.size(), rank=hvd.rank(), shuffle=False)
            mse = trainer.score(DataLoader(test, batch_size=256, sampler=part))
            if hvd.rank() == 0:
                print(f"period {p}: mse {mse:.4f}")
                torch.save(trainer.model.state_dict(), f"period_{p}.pt")


    if __name__ == "__main__":
        main()
'''


def project(sync, reset="pass"):
    return {"run.py": MAIN, "wfc/__init__.py": "",
            "wfc/trainer.py": TRAINER.replace("#SYNC#", sync).replace("#RESET#", reset)}


def test_a_broadcast_once_while_every_period_builds_a_fresh_model_is_wrong(tmp_path):
    crash, flagged, findings = check_project(tmp_path, project(ONCE), script="run.py")
    assert crash is None and flagged == {6: "wrong"}
    assert "not self.synced" in findings[6].evidence and findings[6].file == "wfc/trainer.py"


@pytest.mark.parametrize("sync, reset", [(EVERY_FIT, "pass"), (ONCE, "self.synced = False")])
def test_a_broadcast_for_every_fresh_model_is_right(tmp_path, sync, reset):
    crash, flagged, _ = check_project(tmp_path, project(sync, reset), script="run.py")
    assert crash is None and flagged == {}
