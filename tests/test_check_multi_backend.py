"""Training packages that run under Horovod, torch.distributed or one process, chosen by a backend option whose
default is Horovod (issue 39, classes 1 and 4: the work is in the project's modules, and a guard's value is
the option's default). The pass must see through what such packages do:

- the module kept in a global (`global _hvd; _hvd = hvd` after `import horovod.torch as hvd` in `init()`),
  read as `_hvd.allreduce(...)` in the same module or as `dist._hvd` from another;
- a dispatcher's returns, one per backend (`get_world_size()` returning `_hvd.size()`, `dist.get_world_size()`
  or 1): the LR scaled by it is scaled;
- the broadcast behind `if _BACKEND == "horovod":`, the backend the option's default selects;
- the module carried in a context object (`DistContext("horovod", ..., hvd=hvd)` made by a factory that
  returns another context per backend), read as `ctx.hvd.DistributedOptimizer` or `hvd = ctx.hvd`;
- `hvd = None`, then `import horovod.tensorflow.keras as hvd` under the backend's test: `hvd is not None` is
  not known to be false.

Before these rules the first project read 5 false alarms, the second 3. Each variant below leaves one step
out, which must be the one flagged.

Written from scratch for these tests: a torch package `anyb` and a Keras package `kctx`."""
import pytest

from crash_scripts import Source, check, check_project
from hvdkit.check import OK

DIST = Source('''
    """horovodrun -> "horovod" (the default), torchrun -> "ddp", python -> "none"."""
    import os

    import torch
    import torch.distributed as tdist

    _BACKEND = "none"
    _hvd = None


    def init(backend="horovod"):
        global _BACKEND, _hvd
        if backend == "horovod":
            import horovod.torch as hvd
            hvd.init()
            _hvd = hvd
            if torch.cuda.is_available():
                torch.cuda.set_device(hvd.local_rank())
        elif backend == "ddp":
            tdist.init_process_group("gloo")
            if torch.cuda.is_available():
                torch.cuda.set_device(int(os.environ["LOCAL_RANK"]))
        _BACKEND = backend


    def get_world_size():
        if _BACKEND == "horovod":
            return _hvd.size()
        if _BACKEND == "ddp":
            return tdist.get_world_size()
        return 1


    def get_rank():
        if _BACKEND == "horovod":
            return _hvd.rank()
        if _BACKEND == "ddp":
            return tdist.get_rank()
        return 0


    def sum_all(t, name):
        if _BACKEND == "horovod":
            return _hvd.allreduce(t, name=name, op=_hvd.Sum)
        if _BACKEND == "ddp":
            t = t.clone()
            tdist.all_reduce(t)
        return t


    def wrap(model, optimizer):
        if _BACKEND == "horovod":
            #BCAST#
            optimizer = _hvd.DistributedOptimizer(optimizer, named_parameters=model.named_parameters())
        elif _BACKEND == "ddp":
            model = torch.nn.parallel.DistributedDataParallel(model)
        return model, optimizer
''')

BCAST = '''_hvd.broadcast_parameters(model.state_dict(), root_rank=0)
            _hvd.broadcast_optimizer_state(optimizer, root_rank=0)'''

TRAIN = '''
    """Classify sensor windows.

        horovodrun -np 4 python train.py
        torchrun --nproc_per_node 4 train.py --backend ddp
    """
    import argparse

    import torch
    import torch.nn.functional as F
    from torch.utils.data import DataLoader, TensorDataset
    from torch.utils.data.distributed import DistributedSampler

    from anyb import dist


    def main():
        ap = argparse.ArgumentParser()
        ap.add_argument("--backend", default="horovod", choices=["horovod", "ddp", "none"])
        ap.add_argument("--lr", type=float, default=0.01)
        ap.add_argument("--epochs", type=int, default=3)
        args = ap.parse_args()
        dist.init(args.backend)
        torch.set_num_threads(1)
        x, y = torch.randn(4096, 32), torch.randint(0, 5, (4096,))
        data = TensorDataset(x, y)
        sampler = DistributedSampler(data, num_replicas=dist.get_world_size(), rank=dist.get_rank())
        loader = DataLoader(data, batch_size=64, sampler=sampler)
        model = torch.nn.Linear(32, 5)
        optimizer = torch.optim.SGD(model.parameters(), lr=#LR#, momentum=0.9)
        model, optimizer = dist.wrap(model, optimizer)
        #TRAINBCAST#
        for epoch in range(args.epochs):
            sampler.set_epoch(epoch)
            total = torch.zeros(2)
            for xb, yb in loader:
                optimizer.zero_grad()
                loss = F.cross_entropy(model(xb), yb)
                loss.backward()
                optimizer.step()
                total += torch.stack([loss.detach() * len(xb), torch.tensor(float(len(xb)))])
            total = dist.sum_all(total, name="loss")
            if dist.get_rank() == 0:
                print(f"epoch {epoch} loss {(total[0] / total[1]).item():.4f}")
                torch.save(model.state_dict(), "model.pt")


    if __name__ == "__main__":
        main()
'''


def torch_project(bcast=BCAST, lr="args.lr * dist.get_world_size()", train_bcast="pass"):
    return {"train.py": Source(TRAIN).replace("#LR#", lr).replace("#TRAINBCAST#", train_bcast), "anyb/__init__.py": "",
            "anyb/dist.py": DIST.replace("#BCAST#", bcast)}


def test_a_backend_package_whose_default_is_horovod_is_read_through(tmp_path):
    crash, flagged, findings = check_project(tmp_path, torch_project())
    assert crash is None and flagged == {}
    assert findings[5].file == "anyb/dist.py" and findings[6].file == "anyb/dist.py"


@pytest.mark.parametrize("edit, step", [
    (dict(bcast="pass"), {6: "missing"}),
    (dict(lr="args.lr"), {4: "missing"}),
])
def test_a_step_the_backend_package_leaves_out_is_flagged(tmp_path, edit, step):
    crash, flagged, _ = check_project(tmp_path, torch_project(**edit))
    assert crash is None and flagged == step


def test_the_module_a_package_keeps_in_a_global_is_read_from_another_module(tmp_path):
    # `dist._hvd` read in train.py: the module anyb/dist.py keeps in `_hvd` once init() ran
    train_bcast = """if args.backend == "horovod":
            dist._hvd.broadcast_parameters(model.state_dict(), root_rank=0)
            dist._hvd.broadcast_optimizer_state(optimizer, root_rank=0)"""
    crash, flagged, findings = check_project(tmp_path, torch_project(bcast="pass", train_bcast=train_bcast))
    assert crash is None and flagged == {}
    assert findings[6].file is None and "dist._hvd.broadcast_parameters" in findings[6].evidence


STRATEGY = Source('''
    import contextlib
    from dataclasses import dataclass
    from typing import Any

    import tensorflow as tf


    @dataclass
    class DistContext:
        kind: str
        rank: int = 0
        size: int = 1
        hvd: Any = None


    def setup(kind="horovod"):
        if kind == "horovod":
            import horovod.tensorflow.keras as hvd
            hvd.init()
            gpus = tf.config.list_physical_devices("GPU")
            if gpus:
                tf.config.set_visible_devices(gpus[hvd.local_rank()], "GPU")
            return DistContext("horovod", hvd.rank(), hvd.size(), hvd=hvd)
        if kind == "mirrored":
            strategy = tf.distribute.MirroredStrategy()
            return DistContext("mirrored", 0, strategy.num_replicas_in_sync)
        return DistContext("none")
''')

CALLBACKS = Source('''
    import keras


    def make_callbacks(ctx, lr):
        cbs = []
        if ctx.kind == "horovod":
            hvd = ctx.hvd
            cbs += [#BCAST#hvd.callbacks.MetricAverageCallback(),
                    hvd.callbacks.LearningRateWarmupCallback(initial_lr=lr, warmup_epochs=2, verbose=0)]
        if ctx.rank == 0:
            cbs.append(keras.callbacks.ModelCheckpoint("ckpt.keras"))
        return cbs
''')

FIT = '''
    """Keras classifier: horovodrun -np 4 python fit.py"""
    import argparse

    import keras
    import numpy as np
    import tensorflow as tf

    from kctx.callbacks import make_callbacks
    from kctx.strategy import setup


    def main():
        ap = argparse.ArgumentParser()
        ap.add_argument("--strategy", default="horovod", choices=["horovod", "mirrored", "none"])
        ap.add_argument("--lr", type=float, default=1e-3)
        args = ap.parse_args()
        ctx = setup(args.strategy)
        rng = np.random.default_rng(0)
        x = rng.random((2048, 16), dtype="float32")
        y = rng.integers(0, 3, 2048)
        ds = tf.data.Dataset.from_tensor_slices((x, y)).shard(ctx.size, ctx.rank).shuffle(512).batch(32)
        lr = args.lr * ctx.size
        model = keras.Sequential([keras.Input((16,)), keras.layers.Dense(3)])
        opt = keras.optimizers.Adam(learning_rate=lr)
        if ctx.kind == "horovod":
            opt = ctx.hvd.DistributedOptimizer(opt)
        model.compile(optimizer=opt, loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True),
                      metrics=["accuracy"])
        model.fit(ds, epochs=3, callbacks=make_callbacks(ctx, lr), verbose=2 if ctx.rank == 0 else 0)


    if __name__ == "__main__":
        main()
'''


def keras_project(bcast="hvd.callbacks.BroadcastGlobalVariablesCallback(0), "):
    return {"fit.py": FIT, "kctx/__init__.py": "", "kctx/strategy.py": STRATEGY,
            "kctx/callbacks.py": CALLBACKS.replace("#BCAST#", bcast)}


@pytest.mark.parametrize("bcast, flagged", [
    ("hvd.callbacks.BroadcastGlobalVariablesCallback(0), ", {}),
    ("", {6: "missing"}),
])
def test_the_module_a_context_object_carries_is_horovods(tmp_path, bcast, flagged):
    crash, found, findings = check_project(tmp_path, keras_project(bcast), script="fit.py")
    assert crash is None and found == flagged
    assert "DistributedOptimizer" in findings[5].evidence
    # the callbacks run under `ctx.kind == "horovod"`: the context setup() returns for the default kind
    assert flagged or findings[6].verdict == OK


OPTIONAL = Source('''
    """Text classifier: horovodrun -np 4 python run.py (or --distributed none)"""
    import argparse

    import keras
    import numpy as np
    import tensorflow as tf


    def main():
        ap = argparse.ArgumentParser()
        ap.add_argument("--distributed", default="horovod", choices=["horovod", "none"])
        ap.add_argument("--lr", type=float, default=1e-3)
        args = ap.parse_args()
        hvd = None
        size, rank = 1, 0
        if args.distributed == "horovod":
            import horovod.tensorflow.keras as hvd
            hvd.init()
            size, rank = hvd.size(), hvd.rank()
            gpus = tf.config.list_physical_devices("GPU")
            if gpus:
                tf.config.set_visible_devices(gpus[hvd.local_rank()], "GPU")
        rng = np.random.default_rng(0)
        x = rng.random((2048, 16), dtype="float32")
        y = rng.integers(0, 3, 2048)
        ds = tf.data.Dataset.from_tensor_slices((x, y)).shard(size, rank).shuffle(512).batch(32)
        opt = keras.optimizers.Adam(learning_rate=args.lr * size)
        if hvd is not None:
            opt = hvd.DistributedOptimizer(opt)
        model = keras.Sequential([keras.Input((16,)), keras.layers.Dense(3)])
        model.compile(optimizer=opt, loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True))
        callbacks = []
        if hvd is not None:
            callbacks += [hvd.callbacks.BroadcastGlobalVariablesCallback(0), hvd.callbacks.MetricAverageCallback()]
        if rank == 0:
            callbacks.append(keras.callbacks.ModelCheckpoint("run.keras"))
        model.fit(ds, epochs=3, callbacks=callbacks, verbose=2 if rank == 0 else 0)


    if __name__ == "__main__":
        main()
''')


def test_a_module_imported_under_the_backends_test_is_not_none(tmp_path):
    crash, flagged = check(tmp_path, OPTIONAL)
    assert crash is None and 5 not in flagged and 6 not in flagged


FACADE = Source('''
    """CIFAR-like run under horovodrun (default) or torch.distributed: horovodrun -np 4 python main.py"""
    import argparse

    import torch
    import torch.distributed as tdist
    import torch.nn.functional as F
    from torch.utils.data import DataLoader, TensorDataset
    from torch.utils.data.distributed import DistributedSampler

    try:
        import horovod.torch as hvd
    except ImportError:
        hvd = None


    class Env:
        """One face for horovod, torch.distributed or one process."""

        def __init__(self, backend):
            self.backend = backend
            if backend == "horovod":
                hvd.init()
                self.rank, self.world_size = hvd.rank(), hvd.size()
            elif backend == "gloo":
                tdist.init_process_group(backend)
                self.rank, self.world_size = tdist.get_rank(), tdist.get_world_size()
            else:
                self.rank, self.world_size = 0, 1

        def sum(self, t, name):
            if self.backend == "horovod":
                return hvd.allreduce(t, name=name, op=hvd.Sum)
            if self.backend == "gloo":
                tdist.all_reduce(t)
            return t


    def loaders(env):
        g = torch.Generator().manual_seed(0)
        x, y = torch.randn(4096, 32, generator=g), torch.randint(0, 5, (4096,), generator=g)
        train, test = TensorDataset(x[:3584], y[:3584]), TensorDataset(x[3584:], y[3584:])
        sampler = DistributedSampler(train, num_replicas=env.world_size, rank=env.rank)
        part = DistributedSampler(test, num_replicas=env.world_size, rank=env.rank, shuffle=False)
        return DataLoader(train, batch_size=64, sampler=sampler), DataLoader(test, batch_size=256, sampler=part)


    def evaluate(model, loader, env):
        totals = torch.zeros(2)
        with torch.no_grad():
            for x, y in loader:
                totals += torch.tensor([(model(x).argmax(1) == y).sum().item(), float(len(y))])
        totals = env.sum(totals, name="acc")
        return totals[0].item() / totals[1].item()


    def main():
        ap = argparse.ArgumentParser()
        ap.add_argument("--backend", default="horovod", choices=["horovod", "gloo", "none"])
        args = ap.parse_args()
        env = Env(args.backend)
        torch.set_num_threads(1)
        train_loader, test_loader = loaders(env)
        model = torch.nn.Linear(32, 5)
        optimizer = torch.optim.SGD(model.parameters(), lr=0.01 * env.world_size)
        if env.backend == "horovod":
            hvd.broadcast_parameters(model.state_dict(), root_rank=0)
            optimizer = hvd.DistributedOptimizer(optimizer, named_parameters=model.named_parameters())
        for epoch in range(3):
            for x, y in train_loader:
                optimizer.zero_grad()
                F.cross_entropy(model(x), y).backward()
                optimizer.step()
            acc = evaluate(model, test_loader, env)
            if env.rank == 0:
                print(f"epoch {epoch} acc {acc:.3f}")
                torch.save(model.state_dict(), "model.pt")


    if __name__ == "__main__":
        main()
''')


def test_a_facade_handed_as_a_parameter_partitions_and_sums_with_its_counts(tmp_path):
    # `env.world_size` / `env.rank` of a parameter `env`: what the facade's __init__ sets on the instance the
    # walked call handed in; `env.sum(totals)` allreduces the counts with the sums: an exact mean
    crash, flagged = check(tmp_path, FACADE)
    assert crash is None and 3 not in flagged and 8 not in flagged


CLUSTER = Source('''
    import tensorflow as tf


    class Cluster:
        def __init__(self, backend="horovod"):
            self.backend = backend
            self.hvd = None
            self.rank, self.size = 0, 1
            if backend == "horovod":
                import horovod.tensorflow.keras as hvd
                hvd.init()
                self.hvd = hvd
                self.rank, self.size = hvd.rank(), hvd.size()
                gpus = tf.config.list_physical_devices("GPU")
                if gpus:
                    tf.config.set_visible_devices(gpus[hvd.local_rank()], "GPU")
            elif backend == "mirrored":
                self.size = tf.distribute.MirroredStrategy().num_replicas_in_sync

        def wrap(self, opt):
            return self.hvd.DistributedOptimizer(opt) if self.backend == "horovod" else opt

        def callbacks(self):
            if self.backend != "horovod":
                return []
            return [#BCAST#self.hvd.callbacks.MetricAverageCallback()]
''')

LOAD_FIT = '''
    """Load forecasting: horovodrun -np 4 python fit.py"""
    import argparse

    import keras
    import numpy as np
    import tensorflow as tf

    from grid.cluster import Cluster


    def main():
        ap = argparse.ArgumentParser()
        ap.add_argument("--backend", default="horovod", choices=["horovod", "mirrored"])
        ap.add_argument("--lr", type=float, default=1e-3)
        args = ap.parse_args()
        cluster = Cluster(args.backend)
        rng = np.random.default_rng(0)
        x, y = rng.random((4096, 24), dtype="float32"), rng.random((4096, 1), dtype="float32")
        ds = tf.data.Dataset.from_tensor_slices((x, y)).shard(cluster.size, cluster.rank).batch(64)
        model = keras.Sequential([keras.Input((24,)), keras.layers.Dense(32, activation="relu"), keras.layers.Dense(1)])
        model.compile(optimizer=cluster.wrap(keras.optimizers.Adam(learning_rate=args.lr * cluster.size)), loss="mse")
        callbacks = cluster.callbacks() + [keras.callbacks.EarlyStopping(monitor="loss", patience=3)]
        if cluster.rank == 0:
            callbacks.append(keras.callbacks.ModelCheckpoint("load.keras"))
        model.fit(ds, epochs=5, callbacks=callbacks, verbose=2 if cluster.rank == 0 else 0)


    if __name__ == "__main__":
        main()
'''


@pytest.mark.parametrize("bcast, flagged", [
    ("self.hvd.callbacks.BroadcastGlobalVariablesCallback(0), ", {}),
    ("", {6: "missing"}),
])
def test_a_backend_class_keeps_the_module_and_the_size_on_self(tmp_path, bcast, flagged):
    # `self.hvd.DistributedOptimizer`, an LR times `cluster.size` (set on self by __init__), and callbacks a
    # method returns, concatenated with others before fit
    files = {"fit.py": LOAD_FIT, "grid/__init__.py": "", "grid/cluster.py": CLUSTER.replace("#BCAST#", bcast)}
    crash, found, findings = check_project(tmp_path, files, script="fit.py")
    assert crash is None and found == flagged
    assert "DistributedOptimizer" in findings[5].evidence and "MetricAverageCallback" in findings[8].evidence


WARMUP = Source('''
    """ImageNet-style warm-up: horovodrun -np 8 python train.py"""
    import argparse

    import horovod.torch as hvd
    import torch
    import torch.nn.functional as F
    from torch.utils.data import DataLoader, TensorDataset
    from torch.utils.data.distributed import DistributedSampler


    def lr_scaler(args):
        # Adasum needs no scaling by the number of workers
        if args.use_adasum:
            return hvd.local_size() if hvd.nccl_built() else 1
        return hvd.size()


    def adjust(optimizer, epoch, args):
        if epoch < args.warmup_epochs:
            lr_adj = 1.0 / lr_scaler(args) * (epoch * (lr_scaler(args) - 1) / args.warmup_epochs + 1)
        else:
            lr_adj = 0.1 ** (epoch // 30)
        for group in optimizer.param_groups:
            group["lr"] = args.base_lr * lr_scaler(args) * lr_adj


    def main():
        ap = argparse.ArgumentParser()
        ap.add_argument("--base-lr", type=float, default=0.0125)
        ap.add_argument("--warmup-epochs", type=int, default=5)
        ap.add_argument("--use-adasum", action="store_true")
        args = ap.parse_args()
        hvd.init()
        torch.set_num_threads(1)
        g = torch.Generator().manual_seed(0)
        data = TensorDataset(torch.randn(4096, 32, generator=g), torch.randint(0, 5, (4096,), generator=g))
        sampler = DistributedSampler(data, num_replicas=hvd.size(), rank=hvd.rank())
        loader = DataLoader(data, batch_size=64, sampler=sampler)
        model = torch.nn.Linear(32, 5)
        optimizer = torch.optim.SGD(model.parameters(), lr=args.base_lr * lr_scaler(args), momentum=0.9)
        optimizer = hvd.DistributedOptimizer(optimizer, named_parameters=model.named_parameters(),
                                             op=hvd.Adasum if args.use_adasum else hvd.Average)
        hvd.broadcast_parameters(model.state_dict(), root_rank=0)
        hvd.broadcast_optimizer_state(optimizer, root_rank=0)
        for epoch in range(90):
            sampler.set_epoch(epoch)
            adjust(optimizer, epoch, args)
            total = torch.zeros(2)
            for x, y in loader:
                optimizer.zero_grad()
                loss = F.cross_entropy(model(x), y)
                loss.backward()
                optimizer.step()
                total += torch.stack([loss.detach() * len(x), torch.tensor(float(len(x)))])
            total = hvd.allreduce(total, op=hvd.Sum, name="loss")
            if hvd.rank() == 0:
                print(epoch, (total[0] / total[1]).item())
                torch.save(model.state_dict(), "model.pt")


    if __name__ == "__main__":
        main()
''')


def test_a_return_an_option_off_by_default_selects_is_not_the_default_runs(tmp_path):
    # lr_scaler's Adasum return runs only with --use-adasum: by default the LR is base * size, warmed up to it
    crash, flagged = check(tmp_path, WARMUP)
    assert crash is None and flagged == {}


CYCLE = Source('''
    import horovod.torch as hvd
    import torch


    class Holder:
        def __init__(self):
            self.a = self.b
            self.b = self.a

        def run(self):
            self.a.allreduce(torch.zeros(1))


    def main():
        hvd.init()
        Holder().run()


    if __name__ == "__main__":
        main()
''')


def test_attributes_assigned_each_other_hold_no_module_and_end(tmp_path):
    # looking for a module in `self.a` follows `self.b` and back: the cycle ends (it raised RecursionError)
    crash, flagged = check(tmp_path, CYCLE)
    assert crash is None and flagged[5] == "missing"
