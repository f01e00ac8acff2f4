"""Registries kept in a plain dict: `HOOKS = {}` filled by a decorator (`@register_hook("checkpoint")` over
`def deco(cls): HOOKS[name] = cls`) or written as a literal, and looked up by a name the configuration holds
(`HOOKS[name](work_dir)`, `FACTORIES[name](cfg)`). Each function or class the dict holds may be what runs:
a checkpoint hook made that way and called from the epoch loop writes the checkpoint, and the callbacks a
registered factory returns reach `fit`. Before, the lookup was no call the walk could follow: "no checkpoint
is written", "no broadcast from rank 0" on projects that do both.

Written from scratch for these tests: a PyTorch service whose hooks come from a registry, and a Keras 3
project whose callbacks come from registered factories, both as packages beside the entry script."""
import textwrap

import pytest

from hvdkit.check import FLAGGED, OK
from hvdkit.check.static import analyze

HOOKS_DECORATED = '''
    import os

    import torch
    import horovod.torch as hvd

    HOOKS = {}


    def register_hook(name):
        def deco(cls):
            HOOKS[name] = cls
            return cls
        return deco


    class Hook:
        def __init__(self, work_dir):
            self.work_dir = work_dir

        def after_epoch(self, trainer, epoch):
            pass


    @register_hook("checkpoint")
    class CheckpointHook(Hook):
        def after_epoch(self, trainer, epoch):
{guard}            torch.save(trainer.model.state_dict(), os.path.join(self.work_dir, f"epoch{epoch}.pt"))


    @register_hook("log")
    class LogHook(Hook):
        def after_epoch(self, trainer, epoch):
            if hvd.rank() == 0:
                print("epoch", epoch, trainer.last_loss)


    def build_hooks(names, work_dir):
        return [HOOKS[n.strip()](work_dir) for n in names.split(",") if n.strip()]
'''

# The same hooks, the registry written as a literal after the classes.
HOOKS_LITERAL = HOOKS_DECORATED.replace('''    HOOKS = {}


    def register_hook(name):
        def deco(cls):
            HOOKS[name] = cls
            return cls
        return deco


''', "").replace('    @register_hook("checkpoint")\n', "").replace('    @register_hook("log")\n', "").replace(
    "    def build_hooks(", '    HOOKS = {"checkpoint": CheckpointHook, "log": LogHook}\n\n\n    def build_hooks(')

TORCH_MAIN = '''
    """Tabular regression service.  horovodrun -np 4 python train.py --hooks checkpoint,log"""
    import argparse

    import torch
    import horovod.torch as hvd
    from torch.utils.data import DataLoader, TensorDataset
    from torch.utils.data.distributed import DistributedSampler

    from svc.hooks import build_hooks


    class Trainer:
        def __init__(self, model, optimizer):
            self.model, self.optimizer, self.last_loss = model, optimizer, None

        def train_epoch(self, loader):
            for x, y in loader:
                self.optimizer.zero_grad()
                loss = torch.nn.functional.mse_loss(self.model(x), y)
                loss.backward()
                self.optimizer.step()
            self.last_loss = hvd.allreduce(loss.detach(), name="loss").item()


    def main():
        parser = argparse.ArgumentParser()
        parser.add_argument("--hooks", default="checkpoint,log")
        parser.add_argument("--work-dir", default="runs")
        parser.add_argument("--epochs", type=int, default=3)
        args = parser.parse_args()
        hvd.init()
        torch.set_num_threads(1)
        if torch.cuda.is_available():
            torch.cuda.set_device(hvd.local_rank())
        data = TensorDataset(torch.randn(1024, 8), torch.randn(1024, 1))
        sampler = DistributedSampler(data, num_replicas=hvd.size(), rank=hvd.rank())
        loader = DataLoader(data, batch_size=32, sampler=sampler)
        model = torch.nn.Linear(8, 1)
        opt = torch.optim.SGD(model.parameters(), lr=0.01 * hvd.size())
        opt = hvd.DistributedOptimizer(opt, named_parameters=model.named_parameters())
        hvd.broadcast_parameters(model.state_dict(), root_rank=0)
        hvd.broadcast_optimizer_state(opt, root_rank=0)
        trainer, hooks = Trainer(model, opt), build_hooks(args.hooks, args.work_dir)
        for epoch in range(args.epochs):
            sampler.set_epoch(epoch)
            trainer.train_epoch(loader)
            for hook in hooks:
                hook.after_epoch(trainer, epoch)


    if __name__ == "__main__":
        main()
'''

CALLBACKS = '''
    import keras
    import horovod.tensorflow.keras as hvd

    CALLBACK_FACTORIES = {}


    def register(name):
        def deco(fn):
            CALLBACK_FACTORIES[name] = fn
            return fn
        return deco


    @register("sync")
    def _sync(cfg):
        return [{sync}]


    @register("checkpoint")
    def _checkpoint(cfg):
        if hvd.rank() != 0:
            return []
        return [keras.callbacks.ModelCheckpoint(cfg["out"] + "/model-{epoch:02d}.keras")]


    def build_callbacks(cfg):
        out = []
        for name in cfg["callbacks"]:
            out.extend(CALLBACK_FACTORIES[name](cfg))
        return out
'''

KERAS_MAIN = '''
    """Intent classifier.  horovodrun -np 4 python train.py"""
    import numpy as np
    import keras
    import tensorflow as tf
    import horovod.tensorflow.keras as hvd

    from intent.callbacks import build_callbacks

    CONFIG = {"callbacks": ["sync", "checkpoint"], "out": "runs", "lr": 1e-3}


    def main():
        hvd.init()
        tf.config.threading.set_intra_op_parallelism_threads(1)
        rng = np.random.default_rng(0)
        x = rng.normal(size=(4096, 16)).astype("float32")
        y = (x[:, 0] > 0).astype("int32")
        x, y = x[hvd.rank()::hvd.size()], y[hvd.rank()::hvd.size()]
        model = keras.Sequential([keras.layers.Dense(32, activation="relu"), keras.layers.Dense(2)])
        opt = hvd.DistributedOptimizer(keras.optimizers.Adam(learning_rate=CONFIG["lr"] * hvd.size()))
        model.compile(optimizer=opt, loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True),
                      metrics=["accuracy"])
        model.fit(x, y, batch_size=64, epochs=4, callbacks=build_callbacks(CONFIG),
                  verbose=2 if hvd.rank() == 0 else 0)


    if __name__ == "__main__":
        main()
'''

SYNC = "hvd.callbacks.BroadcastGlobalVariablesCallback(0), hvd.callbacks.MetricAverageCallback()"


def project(root, package, modules, main):
    (root / "pyproject.toml").write_text('[project]\nname = "svc"\n')
    (root / package).mkdir()
    (root / package / "__init__.py").write_text("")
    for name, source in modules.items():
        (root / package / name).write_text(textwrap.dedent(source).lstrip("\n"))
    (root / "train.py").write_text(textwrap.dedent(main).lstrip("\n"))
    findings, _, _ = analyze(str(root / "train.py"))
    return findings


GUARDED = "            if hvd.rank() != 0:\n                return\n"  # at the template's own indent


@pytest.mark.parametrize("hooks", [HOOKS_DECORATED, HOOKS_LITERAL], ids=["decorated", "literal"])
def test_a_checkpoint_hook_made_from_a_registry_writes_the_checkpoint(tmp_path, hooks):
    findings = project(tmp_path, "svc", {"hooks.py": hooks.replace("{guard}", GUARDED)}, TORCH_MAIN)
    assert findings[7].verdict == OK and "torch.save" in findings[7].evidence, findings[7]
    assert all(f.verdict == OK for f in findings.values()), {n: f.verdict for n, f in findings.items()}


@pytest.mark.parametrize("hooks", [HOOKS_DECORATED, HOOKS_LITERAL], ids=["decorated", "literal"])
def test_a_registry_hook_that_saves_on_every_rank_is_flagged(tmp_path, hooks):
    findings = project(tmp_path, "svc", {"hooks.py": hooks.replace("{guard}", "")}, TORCH_MAIN)
    assert findings[7].verdict in FLAGGED and "every rank" in findings[7].evidence, findings[7]


def test_callbacks_from_registered_factories_reach_fit(tmp_path):
    findings = project(tmp_path, "intent", {"callbacks.py": CALLBACKS.replace("{sync}", SYNC)}, KERAS_MAIN)
    for step in (6, 7, 8):
        assert findings[step].verdict == OK, (step, findings[step])
    assert "BroadcastGlobalVariablesCallback" in findings[6].evidence


def test_a_sync_factory_without_the_broadcast_is_flagged(tmp_path):
    findings = project(tmp_path, "intent", {"callbacks.py": CALLBACKS.replace(
        "{sync}", "hvd.callbacks.MetricAverageCallback()")}, KERAS_MAIN)
    assert findings[6].verdict in FLAGGED, findings[6]
    assert findings[8].verdict == OK, findings[8]
