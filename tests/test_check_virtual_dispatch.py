"""A method runs on the instance it is called on: `trainer.train()` on a subclass's instance runs the base
class's `train`, whose `self.before_train()` and `self.run_step()` are the subclass's overrides. And a
method called on a name the constructor's result was assigned to (`t = Trainer(...)`, then `t.train()`)
reads what that constructor stored on `self`, as `Trainer(...).train()` does.

Written from scratch for these tests: a small trainer hierarchy (a base with hooks, a subclass that
broadcasts, a subclass whose step does not average), in a package, and a flat script."""
from hvdkit.check import FLAGGED, OK

from crash_scripts import Source, check, check_project

ENGINE = Source('''
    import torch
    import horovod.torch as hvd


    class BaseTrainer:
        def __init__(self, model, optimizer):
            self.model = model
            self.optimizer = optimizer

        def before_train(self):
            pass

        def run_step(self, x, y):
            self.optimizer.zero_grad()
            loss = torch.nn.functional.mse_loss(self.model(x), y)
            loss.backward()
            self.optimizer.step()
            return loss

        def train(self, batches, epochs):
            self.before_train()
            for epoch in range(epochs):
                for x, y in batches:
                    loss = self.run_step(x, y)
                avg = hvd.allreduce(loss.detach(), name="loss")
                if hvd.rank() == 0:
                    print(f"epoch {epoch} loss {avg.item():.4f}")
                    torch.save(self.model.state_dict(), "model.pt")


    class SyncedTrainer(BaseTrainer):
        def before_train(self):
            hvd.broadcast_parameters(self.model.state_dict(), root_rank=0)
            hvd.broadcast_optimizer_state(self.optimizer, root_rank=0)


    class LocalStepTrainer(SyncedTrainer):
        """Steps with the plain optimizer it keeps beside the wrapped one."""

        def __init__(self, model, optimizer, plain):
            super().__init__(model, optimizer)
            self.plain = plain

        def run_step(self, x, y):
            self.plain.zero_grad()
            loss = torch.nn.functional.mse_loss(self.model(x), y)
            loss.backward()
            self.plain.step()
            return loss
''')

TRAIN = Source('''
    """Regression with a trainer hierarchy.  horovodrun -np 4 python train.py"""
    import torch
    import horovod.torch as hvd

    from fit.engine import {cls}


    def main():
        hvd.init()
        torch.set_num_threads(1)
        g = torch.Generator().manual_seed(0)
        x = torch.randn(4096, 8, generator=g)[hvd.rank()::hvd.size()]
        y = x.sum(1, keepdim=True)
        batches = [(x[i:i + 64], y[i:i + 64]) for i in range(0, len(x), 64)]
        model = torch.nn.Linear(8, 1)
        plain = torch.optim.SGD(model.parameters(), lr=0.01 * hvd.size())
        optimizer = hvd.DistributedOptimizer(plain, named_parameters=model.named_parameters())
        trainer = {made}
        trainer.train(batches, epochs=3)


    if __name__ == "__main__":
        main()
''')


def run(tmp_path, cls, made):
    files = {"train.py": TRAIN.replace("{cls}", cls).replace("{made}", made), "fit/__init__.py": "",
             "fit/engine.py": ENGINE}
    return check_project(tmp_path, files)[2]


def test_a_subclass_hook_called_from_the_base_class_runs(tmp_path):
    findings = run(tmp_path, "SyncedTrainer", "SyncedTrainer(model, optimizer)")
    assert all(f.verdict == OK for f in findings.values()), {n: (f.verdict, f.evidence) for n, f in findings.items()}
    assert "broadcast_parameters" in findings[6].evidence


def test_the_base_class_own_hook_broadcasts_nothing(tmp_path):
    assert run(tmp_path, "BaseTrainer", "BaseTrainer(model, optimizer)")[6].verdict in FLAGGED


def test_a_subclass_step_override_is_the_step_that_runs(tmp_path):
    f = run(tmp_path, "LocalStepTrainer", "LocalStepTrainer(model, optimizer, plain)")[5]
    assert f.verdict in FLAGGED, f


FLAT = Source('''
    import torch
    import horovod.torch as hvd


    class Trainer:
        def __init__(self, model, optimizer):
            self.model = model
            self.optimizer = optimizer

        def train(self, batches):
            hvd.broadcast_parameters(self.model.state_dict(), root_rank=0)
            for x, y in batches:
                self.optimizer.zero_grad()
                torch.nn.functional.mse_loss(self.model(x), y).backward()
                self.optimizer.step()


    hvd.init()
    torch.set_num_threads(1)
    x = torch.randn(1024, 4)[hvd.rank()::hvd.size()]
    model = torch.nn.Linear(4, 1)
    optimizer = hvd.DistributedOptimizer(torch.optim.SGD(model.parameters(), lr=0.1 * hvd.size()),
                                         named_parameters=model.named_parameters())
    t = Trainer(model, optimizer)
    t.train([(x, x.sum(1, keepdim=True))])
    if hvd.rank() == 0:
        torch.save(model.state_dict(), "m.pt")
''')


def test_a_method_called_on_the_name_the_instance_was_assigned_to_sees_its_attributes(tmp_path):
    crash, flagged = check(tmp_path, FLAT)
    assert crash is None and 6 not in flagged, flagged
