"""`hvdkit check` on a project whose trainer calls its hooks by the event's name (`fn = getattr(hook,
"on_epoch_end", None); fn(self, ...)`), the convention of Keras, Lightning, Hugging Face and hand-made
trainers. The hook classes are the project's own, handed to the trainer as a list; no code calls their
on_* methods by name, so the walk runs them where they are made: the checkpoint hook's save is read, with
the rank test inside it.

Written from scratch for these tests: a tabular credit-risk trainer, package `riskkit`."""
import textwrap

import pytest

from hvdkit.check.findings import OK, WRONG
from hvdkit.check.static import analyze

ENTRY = textwrap.dedent("""
    import horovod.torch as hvd
    import torch

    from riskkit.trainer import CheckpointHook, PrintHook, Trainer


    def main():
        hvd.init()
        torch.set_num_threads(1)
        data = torch.utils.data.TensorDataset(torch.randn(2048, 30), torch.randint(0, 2, (2048,)))
        sampler = torch.utils.data.distributed.DistributedSampler(data, num_replicas=hvd.size(), rank=hvd.rank())
        loader = torch.utils.data.DataLoader(data, batch_size=128, sampler=sampler)
        model = torch.nn.Sequential(torch.nn.Linear(30, 64), torch.nn.ReLU(), torch.nn.Linear(64, 2))
        opt = hvd.DistributedOptimizer(torch.optim.Adam(model.parameters(), lr=1e-3 * hvd.size()),
                                       named_parameters=model.named_parameters())
        hvd.broadcast_parameters(model.state_dict(), root_rank=0)
        hvd.broadcast_optimizer_state(opt, root_rank=0)
        trainer = Trainer(model, opt, hooks=[PrintHook(), CheckpointHook("runs/risk")])
        trainer.fit(loader, sampler, epochs=12)


    if __name__ == "__main__":
        main()
""").lstrip()

TRAINER = textwrap.dedent("""
    import os

    import horovod.torch as hvd
    import torch


    class Trainer:
        def __init__(self, model, opt, hooks=()):
            self.model, self.opt, self.hooks, self.epoch = model, opt, list(hooks), 0

        def _emit(self, event, **kw):
            for hook in self.hooks:
                fn = getattr(hook, event, None)
                if fn is not None:
                    fn(self, **kw)

        def fit(self, loader, sampler, epochs):
            for self.epoch in range(epochs):
                sampler.set_epoch(self.epoch)
                total = torch.zeros(2)
                for x, y in loader:
                    self.opt.zero_grad()
                    loss = torch.nn.functional.cross_entropy(self.model(x), y)
                    loss.backward()
                    self.opt.step()
                    total += torch.tensor([loss.item() * len(y), len(y)])
                total = hvd.allreduce(total, op=hvd.Sum)
                self._emit("on_epoch_end", loss=(total[0] / total[1]).item())


    class PrintHook:
        def on_epoch_end(self, trainer, loss):
            if hvd.rank() == 0:
                print(f"epoch {trainer.epoch}: loss {loss:.4f}")


    class CheckpointHook:
        def __init__(self, folder):
            self.folder = folder

        def on_epoch_end(self, trainer, **metrics):
            GUARD
            os.makedirs(self.folder, exist_ok=True)
            torch.save({"model": trainer.model.state_dict(), "opt": trainer.opt.state_dict()},
                       os.path.join(self.folder, "last.pt"))
""").lstrip()


@pytest.mark.parametrize("guard, verdict", [
    ("if hvd.rank() != 0:\n            return", OK),
    ("pass", WRONG),  # every rank writes last.pt
])
def test_a_checkpoint_hook_called_by_the_events_name_is_read(tmp_path, guard, verdict):
    (tmp_path / "pyproject.toml").write_text("[project]\nname = \"riskkit\"\n")
    (tmp_path / "train.py").write_text(ENTRY)
    (tmp_path / "riskkit").mkdir()
    (tmp_path / "riskkit" / "__init__.py").write_text("")
    (tmp_path / "riskkit" / "trainer.py").write_text(TRAINER.replace("GUARD", guard))
    findings, _, _ = analyze(str(tmp_path / "train.py"))
    assert findings[7].verdict == verdict
    assert findings[7].file == "riskkit/trainer.py"
