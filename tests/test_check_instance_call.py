"""An instance of the project's own class called like a function runs its class's `__call__`: an early-stopping
object that saves the best model when called (`stopper(val_loss, model, path)`), kept in a Trainer's attribute or
a local name (issue 39, class 1: the work is in the project's modules). Before the rule the walk did not enter
`__call__`: "no checkpoint is written" on a project whose rank 0 saves, and nothing said when every rank saves.

Written from scratch for these tests: a torch forecasting project with a `fcst` package."""
import pytest

from crash_scripts import Source, check_project

STOPPING = Source('''
    import os

    import torch


    class Patience:
        def __init__(self, patience=3, writer=True):
            self.patience, self.writer = patience, writer
            self.best, self.bad, self.stop = float("inf"), 0, False

        def __call__(self, score, model, folder):
            if score < self.best:
                self.best, self.bad = score, 0
                #SAVE#
            else:
                self.bad += 1
                self.stop = self.bad >= self.patience
''')

GUARDED = '''if self.writer:
                    os.makedirs(folder, exist_ok=True)
                    torch.save(model.state_dict(), os.path.join(folder, "best.pt"))'''
EVERY_RANK = '''os.makedirs(folder, exist_ok=True)
                torch.save(model.state_dict(), os.path.join(folder, "best.pt"))'''

RUNNER = '''
    import horovod.torch as hvd
    import torch
    import torch.nn.functional as F
    from torch.utils.data import DataLoader, TensorDataset
    from torch.utils.data.distributed import DistributedSampler

    from fcst.stopping import Patience


    class Runner:
        def __init__(self, cfg):
            self.cfg = cfg
            self.model = torch.nn.Linear(cfg["window"], 1)
            opt = torch.optim.Adam(self.model.parameters(), lr=cfg["lr"] * hvd.size())
            self.opt = hvd.DistributedOptimizer(opt, named_parameters=self.model.named_parameters())
            hvd.broadcast_parameters(self.model.state_dict(), root_rank=0)
            hvd.broadcast_optimizer_state(self.opt, root_rank=0)
            #KEEP#

        def loader(self, x, y, shuffle):
            ds = TensorDataset(x, y)
            sampler = DistributedSampler(ds, num_replicas=hvd.size(), rank=hvd.rank(), shuffle=shuffle)
            return DataLoader(ds, batch_size=self.cfg["batch"], sampler=sampler), sampler

        def fit(self, x, y, xv, yv):
            train, sampler = self.loader(x, y, True)
            val, _ = self.loader(xv, yv, False)
            #LOCAL#
            for epoch in range(self.cfg["epochs"]):
                sampler.set_epoch(epoch)
                for xb, yb in train:
                    self.opt.zero_grad()
                    F.mse_loss(self.model(xb), yb).backward()
                    self.opt.step()
                total = torch.zeros(2)
                with torch.no_grad():
                    for xb, yb in val:
                        total += torch.stack([F.mse_loss(self.model(xb), yb, reduction="sum"),
                                              torch.tensor(float(len(xb)))])
                total = hvd.allreduce(total, op=hvd.Sum, name="val")
                score = (total[0] / total[1]).item()
                if hvd.rank() == 0:
                    print(f"epoch {epoch} val mse {score:.4f}")
                #CALL#
                if #STOP#.stop:
                    break
'''

MAIN = '''
    """Forecast electricity load: horovodrun -np 4 python train.py"""
    import horovod.torch as hvd
    import torch

    from fcst.runner import Runner


    def main():
        hvd.init()
        torch.set_num_threads(1)
        cfg = {"window": 24, "lr": 1e-3, "batch": 64, "epochs": 5, "out": "runs/load"}
        series = torch.randn(4096)
        x = series.unfold(0, 25, 1)
        n = int(len(x) * 0.8)
        Runner(cfg).fit(x[:n, :24], x[:n, 24:], x[n:, :24], x[n:, 24:])


    if __name__ == "__main__":
        main()
'''


def project(save, held_on_self):
    runner = Source(RUNNER)
    if held_on_self:
        runner = runner.replace("#KEEP#", "self.stopper = Patience(writer=hvd.rank() == 0)").replace(
            "#LOCAL#", "pass").replace("#CALL#", 'self.stopper(score, self.model, self.cfg["out"])').replace(
            "#STOP#", "self.stopper")
    else:
        runner = runner.replace("#KEEP#", "pass").replace(
            "#LOCAL#", "stopper = Patience(writer=hvd.rank() == 0)").replace(
            "#CALL#", 'stopper(score, self.model, self.cfg["out"])').replace("#STOP#", "stopper")
    return {"train.py": MAIN, "fcst/__init__.py": "", "fcst/runner.py": runner,
            "fcst/stopping.py": STOPPING.replace("#SAVE#", save)}


@pytest.mark.parametrize("held_on_self", [False, True])
def test_a_called_instance_that_saves_on_rank_0_is_a_rank_0_checkpoint(tmp_path, held_on_self):
    crash, flagged, findings = check_project(tmp_path, project(GUARDED, held_on_self))
    assert crash is None and flagged == {}
    assert findings[7].file == "fcst/stopping.py"


@pytest.mark.parametrize("held_on_self", [False, True])
def test_a_called_instance_that_saves_on_every_rank_is_wrong(tmp_path, held_on_self):
    crash, flagged, findings = check_project(tmp_path, project(EVERY_RANK, held_on_self))
    assert crash is None and flagged == {7: "wrong"}
    assert findings[7].file == "fcst/stopping.py"
