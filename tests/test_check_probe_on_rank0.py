"""A linear probe rank 0 runs alone, read through the trainer's `is_master` attribute, is not the training.

The entry script guards the probe and the checkpoint with `trainer.is_master`, which only the Trainer's
`__init__` sets (`self.is_master = hvd.rank() == 0`): read off the instance, it is the rank test. The probe
fits a head of its own with a plain L-BFGS on rank 0 alone: it needs no wrapping (a DistributedOptimizer on
one rank would hang) and no broadcast, and the save beside it is rank 0's, once per epoch. Run by every rank,
the same plain optimizer is flagged; a save outside the guard is flagged. Written from scratch for these
tests: a self-supervised tabular project whose Trainer lives in a package module."""
from hvdkit.check import FLAGGED, OK

from crash_scripts import check_project

ENTRY = '''
    """Contrastive pretraining on tabular rows.  horovodrun -np 4 python pretrain.py --csv rows.csv"""
    import argparse

    import numpy as np
    import torch
    import horovod.torch as hvd

    from tabpre.engine import Trainer


    def main():
        ap = argparse.ArgumentParser()
        ap.add_argument("--epochs", type=int, default=5)
        ap.add_argument("--lr", type=float, default=1e-3)
        args = ap.parse_args()
        hvd.init()
        torch.set_num_threads(1)
        rng = np.random.default_rng(0)
        rows = rng.normal(size=(4096, 16)).astype("float32")
        labels = (rows[:, 0] > 0).astype("int64")
        mine = torch.from_numpy(rows[hvd.rank()::hvd.size()])
        trainer = Trainer(torch.nn.Sequential(torch.nn.Linear(16, 32), torch.nn.ReLU(), torch.nn.Linear(32, 8)),
                          args.lr)
        for epoch in range(args.epochs):
            loss = trainer.train_epoch(mine)
            {guard}
                acc = trainer.probe(rows, labels)
                print(f"epoch {epoch} loss {loss:.4f} probe {acc:.3f}")
            {save_guard}
                trainer.save(epoch)


    if __name__ == "__main__":
        main()
'''

ENGINE = '''
    import torch
    import horovod.torch as hvd


    class Trainer:
        def __init__(self, encoder, lr):
            self.encoder = encoder
            self.is_master = hvd.rank() == 0
            opt = torch.optim.Adam(encoder.parameters(), lr=lr * hvd.size())
            self.opt = hvd.DistributedOptimizer(opt, named_parameters=encoder.named_parameters())
            hvd.broadcast_parameters(encoder.state_dict(), root_rank=0)
            hvd.broadcast_optimizer_state(self.opt, root_rank=0)

        def train_epoch(self, rows, batch=64):
            total = 0.0
            for i in range(0, len(rows) - batch + 1, batch):
                x = rows[i:i + batch]
                noisy = x + 0.1 * torch.randn_like(x)
                loss = torch.nn.functional.mse_loss(self.encoder(noisy), self.encoder(x).detach())
                self.opt.zero_grad()
                loss.backward()
                self.opt.step()
                total += loss.item()
            return hvd.allreduce(torch.tensor(total / max(len(rows) // batch, 1))).item()

        @torch.no_grad()
        def probe(self, rows, labels):
            z = self.encoder(torch.from_numpy(rows))
            y = torch.from_numpy(labels)
            head = torch.nn.Linear(z.shape[1], 2)
            opt = torch.optim.LBFGS(head.parameters(), max_iter=50)
            with torch.enable_grad():
                def closure():
                    opt.zero_grad()
                    loss = torch.nn.functional.cross_entropy(head(z), y)
                    loss.backward()
                    return loss
                opt.step(closure)
            return float((head(z).argmax(1) == y).float().mean())

        def save(self, epoch):
            torch.save({"epoch": epoch, "encoder": self.encoder.state_dict()}, "encoder.pt")
'''

GUARD = "if trainer.is_master:"
ALWAYS = "if True:"


def findings(tmp_path, guard, save_guard):
    files = {"pretrain.py": ENTRY.replace("{guard}", guard).replace("{save_guard}", save_guard),
             "tabpre/__init__.py": "", "tabpre/engine.py": ENGINE}
    return check_project(tmp_path, files, script="pretrain.py")[2]


def test_a_probe_and_a_save_on_rank_0_alone_are_not_the_training(tmp_path):
    got = findings(tmp_path, GUARD, GUARD)
    assert all(got[n].verdict == OK for n in (5, 6, 7)), {n: got[n] for n in (5, 6, 7)}


def test_the_probe_run_by_every_rank_is_flagged(tmp_path):
    assert findings(tmp_path, ALWAYS, GUARD)[5].verdict in FLAGGED


def test_the_save_run_by_every_rank_is_flagged(tmp_path):
    assert findings(tmp_path, GUARD, ALWAYS)[7].verdict in FLAGGED
