"""A torch DistributedOptimizer hooks the parameters it holds, and that require gradients, when it is made
(Horovod 0.28.1's `_register_hooks` and `_requires_update`, in `__init__` only). Fine-tuning code that
unfreezes a backbone part-way changes that set afterwards: `opt.add_param_group({"params": backbone})`, or
`p.requires_grad_(True)` on parameters that were frozen when the optimizer was wrapped. Those parameters then
step with this rank's own gradients: step 5 is wrong. Wrapping after the change, or giving the optimizer every
parameter unfrozen before wrapping, is right.

Written from scratch for these tests: a transfer-learning project whose Trainer (in its own module) unfreezes
the backbone at a configured epoch."""
import pytest

from crash_scripts import Source, check_project

ENGINE = Source('''
    import torch
    import torch.nn.functional as F
    import horovod.torch as hvd


    class Trainer:
        def __init__(self, model, optimizer, lr):
            self.model, self.optimizer, self.lr = model, optimizer, lr

        def unfreeze(self):
            backbone = [p for n, p in self.model.named_parameters() if not n.startswith("head.")]
            for p in backbone:
                p.requires_grad_(True)
            self.optimizer.add_param_group({"params": backbone, "lr": 0.1 * self.lr})

        def train_epoch(self, loader):
            for x, y in loader:
                self.optimizer.zero_grad()
                loss = F.cross_entropy(self.model(x), y)
                loss.backward()
                self.optimizer.step()
            return hvd.allreduce(loss.detach(), name="loss").item()
''')

TRAIN = Source('''
    """Fine-tune a small classifier.  horovodrun -np 4 python train.py"""
    import argparse

    import torch
    import horovod.torch as hvd
    from torch.utils.data import DataLoader, TensorDataset
    from torch.utils.data.distributed import DistributedSampler

    from tl.engine import Trainer


    class Net(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.body = torch.nn.Sequential(torch.nn.Linear(32, 64), torch.nn.ReLU())
            self.head = torch.nn.Linear(64, 5)

        def forward(self, x):
            return self.head(self.body(x))


    def main():
        parser = argparse.ArgumentParser()
        parser.add_argument("--epochs", type=int, default=6)
        parser.add_argument("--unfreeze-at", type=int, default=2)
        parser.add_argument("--lr", type=float, default=0.01)
        args = parser.parse_args()
        hvd.init()
        torch.set_num_threads(1)
        data = TensorDataset(torch.randn(2048, 32), torch.randint(0, 5, (2048,)))
        sampler = DistributedSampler(data, num_replicas=hvd.size(), rank=hvd.rank())
        loader = DataLoader(data, batch_size=64, sampler=sampler)
        model = Net()
        for name, p in model.named_parameters():
            p.requires_grad = name.startswith("head.")
        lr = args.lr * hvd.size()
        optimizer = torch.optim.SGD(model.head.parameters(), lr=lr, momentum=0.9)
        optimizer = hvd.DistributedOptimizer(optimizer, named_parameters=model.named_parameters())
        hvd.broadcast_parameters(model.state_dict(), root_rank=0)
        hvd.broadcast_optimizer_state(optimizer, root_rank=0)
        trainer = Trainer(model, optimizer, lr)
        for epoch in range(args.epochs):
            if epoch == args.unfreeze_at:
                trainer.unfreeze()
            sampler.set_epoch(epoch)
            loss = trainer.train_epoch(loader)
            if hvd.rank() == 0:
                print(f"epoch {epoch}: loss {loss:.4f}")
                torch.save(model.state_dict(), "finetuned.pt")


    if __name__ == "__main__":
        main()
''')

# Every parameter in the optimizer from the start, the backbone frozen until the configured epoch.
ALL_IN_OPTIMIZER = TRAIN.replace("torch.optim.SGD(model.head.parameters(),", "torch.optim.SGD(model.parameters(),")
ADD_GROUP = '''            self.optimizer.add_param_group({"params": backbone, "lr": 0.1 * self.lr})\n'''
ONLY_THAWED = ENGINE.replace(ADD_GROUP, "")
# The fix: unfreeze, then wrap a new optimizer over every parameter.
REWRAPPED = ENGINE.replace(ADD_GROUP,
                           '''            base = torch.optim.SGD(self.model.parameters(), lr=self.lr, momentum=0.9)
            self.optimizer = hvd.DistributedOptimizer(base, named_parameters=self.model.named_parameters())
''')


def run(tmp_path, train=TRAIN, engine=ENGINE):
    return check_project(tmp_path / "proj", {"train.py": train, "tl/__init__.py": "", "tl/engine.py": engine})


def test_a_parameter_group_added_after_wrapping_is_not_averaged(tmp_path):
    crash, flagged, findings = run(tmp_path)
    assert crash is None and flagged == {5: "wrong"}, (crash, flagged)
    assert "adds a parameter group" in findings[5].evidence and findings[5].file == "tl/engine.py"


def test_parameters_unfrozen_after_wrapping_are_not_averaged(tmp_path):
    _, flagged, findings = run(tmp_path, ALL_IN_OPTIMIZER, ONLY_THAWED)
    assert flagged == {5: "wrong"}, flagged
    assert "frozen when the DistributedOptimizer was made" in findings[5].evidence


@pytest.mark.parametrize("train, engine", [
    (ALL_IN_OPTIMIZER, REWRAPPED),  # wrapped again after unfreezing
    (ALL_IN_OPTIMIZER.replace('''        for name, p in model.named_parameters():
            p.requires_grad = name.startswith("head.")
''', ""), ONLY_THAWED),  # never frozen: requires_grad_(True) changes nothing
    (ALL_IN_OPTIMIZER.replace('''        for epoch in range(args.epochs):
            if epoch == args.unfreeze_at:
                trainer.unfreeze()
''', '''        for epoch in range(args.epochs):
'''), ONLY_THAWED),
], ids=["rewrapped", "never-frozen", "never-unfrozen"])
def test_wrapping_after_the_change_or_no_change_is_right(tmp_path, train, engine):
    crash, flagged, _ = run(tmp_path, train, engine)
    assert crash is None and flagged == {}, flagged
