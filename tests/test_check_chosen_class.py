"""Objects of a class chosen by a condition: `cls = AccumTrainer if cfg["accum"] > 1 else SimpleTrainer`
then `cls(...)` in a factory, or a reporter's `create()` returning `cls(path) if hvd.rank() == 0 else
_Silent()`. Each class's code may run, under its branch: the trainer's `train()` (its checkpoint, its
broadcast) is walked, and the real reporter's save runs where its branch holds (rank 0 alone: ok; the
first rank of each node: every node writes, flagged).

Written from scratch for these tests: a torch project whose engine and reporting live in a package."""
from hvdkit.check import FLAGGED, OK

from crash_scripts import Source, check_project

ENGINE = Source('''
    import os

    import torch
    import horovod.torch as hvd


    class _Silent:
        def save(self, model, epoch):
            pass


    class Reporter:
        def __init__(self, out):
            self.out = out

        @classmethod
        def create(cls, out):
            return cls(out) if {test} else _Silent()

        def save(self, model, epoch):
            os.makedirs(self.out, exist_ok=True)
            torch.save(model.state_dict(), os.path.join(self.out, f"epoch{epoch}.pt"))


    class SimpleTrainer:
        def __init__(self, cfg, model, optimizer):
            self.cfg, self.model, self.optimizer = cfg, model, optimizer
            self.reporter = Reporter.create(cfg["out"])

        def run_step(self, x, y):
            self.optimizer.zero_grad()
            loss = torch.nn.functional.mse_loss(self.model(x), y)
            loss.backward()
            self.optimizer.step()
            return loss

        def train(self, batches):
            hvd.broadcast_parameters(self.model.state_dict(), root_rank=0)
            hvd.broadcast_optimizer_state(self.optimizer, root_rank=0)
            for epoch in range(self.cfg["epochs"]):
                for x, y in batches:
                    loss = self.run_step(x, y)
                avg = hvd.allreduce(loss.detach(), name="loss")
                if hvd.rank() == 0:
                    print(f"epoch {epoch} loss {avg.item():.4f}")
                self.reporter.save(self.model, epoch)


    class EagerTrainer(SimpleTrainer):
        def run_step(self, x, y):
            loss = super().run_step(x, y)
            return loss.detach()


    def build_trainer(cfg, model, optimizer):
        cls = EagerTrainer if cfg["eager"] else SimpleTrainer
        return cls(cfg, model, optimizer)
''')

TRAIN = '''
    """Regression.  horovodrun -np 4 python train.py"""
    import torch
    import horovod.torch as hvd

    from reg.engine import build_trainer

    CFG = {"epochs": 3, "eager": False, "out": "runs"}


    def main():
        hvd.init()
        torch.set_num_threads(1)
        g = torch.Generator().manual_seed(0)
        x = torch.randn(4096, 8, generator=g)[hvd.rank()::hvd.size()]
        batches = [(x[i:i + 64], x[i:i + 64].sum(1, keepdim=True)) for i in range(0, len(x), 64)]
        model = torch.nn.Linear(8, 1)
        opt = torch.optim.SGD(model.parameters(), lr=0.01 * hvd.size())
        opt = hvd.DistributedOptimizer(opt, named_parameters=model.named_parameters())
        build_trainer(CFG, model, opt).train(batches)


    if __name__ == "__main__":
        main()
'''


def run(tmp_path, test):
    files = {"train.py": TRAIN, "reg/__init__.py": "", "reg/engine.py": ENGINE.replace("{test}", test)}
    return check_project(tmp_path, files)[2]


def test_a_trainer_of_a_chosen_class_is_walked_and_its_rank0_reporter_saves(tmp_path):
    findings = run(tmp_path, "hvd.rank() == 0")
    assert all(f.verdict == OK for f in findings.values()), {n: (f.verdict, f.evidence) for n, f in findings.items()}
    assert "torch.save" in findings[7].evidence and "broadcast_parameters" in findings[6].evidence


def test_a_reporter_made_on_each_nodes_first_rank_writes_on_every_node(tmp_path):
    assert run(tmp_path, "hvd.local_rank() == 0")[7].verdict in FLAGGED
