"""`hvdkit check` on template-style projects (config-driven factories, attribute-dict configs, metric trackers),
from faults a blind held-out read (sets zzzw to zzzz) showed, each as a broken/correct pair written from scratch:
CUDA_VISIBLE_DEVICES set from an option beside a pin by the local rank, a tracker's per-batch log inside a loop
over metric functions, an LR scheduler built by name from torch's scheduler module, an LR scaled on an options
object the Trainer keeps as `self.opts`, an LR stored on an attribute-dict config and read as `ocfg["lr"]`, and
a fit history printed in a loop under MetricAverageCallback."""
import textwrap

from crash_scripts import Source, check_project

TORCH = {
    "train.py": Source("""
        import os

        import torch
        import horovod.torch as hvd

        from tpl import options
        from tpl.data import make_loaders
        from tpl.model import Net
        from tpl.trainer import Trainer


        def main(opts):
            hvd.init()
            os.environ["CUDA_VISIBLE_DEVICES"] = opts.gpus
            torch.cuda.set_device(hvd.local_rank())
            train_loader, val_loader, train_sampler = make_loaders(opts.batch_size)
            model = Net().cuda()
            opts.lr = opts.lr * hvd.size()
            trainer = Trainer(model, opts, train_loader, val_loader, train_sampler)
            trainer.fit()


        if __name__ == "__main__":
            main(options.parse())
        """),
    "tpl/__init__.py": "",
    "tpl/options.py": Source("""
        import argparse


        def parse(argv=None):
            p = argparse.ArgumentParser()
            p.add_argument("--gpus", default="0,1,2,3")
            p.add_argument("--lr", type=float, default=0.05)
            p.add_argument("--batch-size", type=int, default=64)
            p.add_argument("--epochs", type=int, default=5)
            p.add_argument("--save-dir", default="ckpt")
            p.add_argument("--log-dir", default="runs")
            return p.parse_args(argv)
        """),
    "tpl/data.py": Source("""
        import torch
        import horovod.torch as hvd
        from torch.utils.data import DataLoader, TensorDataset
        from torch.utils.data.distributed import DistributedSampler


        def make_loaders(batch_size):
            g = torch.Generator().manual_seed(0)
            train = TensorDataset(torch.randn(2048, 20, generator=g), torch.randint(0, 5, (2048,), generator=g))
            val = TensorDataset(torch.randn(512, 20, generator=g), torch.randint(0, 5, (512,), generator=g))
            train_sampler = DistributedSampler(train, num_replicas=hvd.size(), rank=hvd.rank())
            val_sampler = DistributedSampler(val, num_replicas=hvd.size(), rank=hvd.rank(), shuffle=False)
            return (DataLoader(train, batch_size=batch_size, sampler=train_sampler),
                    DataLoader(val, batch_size=batch_size, sampler=val_sampler), train_sampler)
        """),
    "tpl/model.py": Source("""
        import torch.nn as nn


        class Net(nn.Module):
            def __init__(self):
                super().__init__()
                self.body = nn.Sequential(nn.Linear(20, 64), nn.ReLU(), nn.Linear(64, 5))

            def forward(self, x):
                return self.body(x)
        """),
    "tpl/factory.py": Source("""
        SCHEDULER = {"type": "StepLR", "args": {"step_size": 10, "gamma": 0.5}}


        def build(spec, module, *args, **kwargs):
            return getattr(module, spec["type"])(*args, **{**spec.get("args", {}), **kwargs})
        """),
    "tpl/metrics.py": Source("""
        import torch
        import horovod.torch as hvd


        def accuracy(out, y):
            return (out.argmax(1) == y).float().mean().item()


        def top3(out, y):
            return (out.topk(3, 1).indices == y[:, None]).any(1).float().mean().item()


        class MetricTracker:
            def __init__(self, *keys, writer=None):
                self.keys, self.writer = list(keys), writer
                self.reset()

            def reset(self):
                self.total = {k: 0.0 for k in self.keys}
                self.count = {k: 0 for k in self.keys}

            def update(self, key, value, n=1):
                if self.writer is not None:
                    self.writer.add_scalar(key, value)
                self.total[key] += value * n
                self.count[key] += n

            def result(self):
                return {k: self.total[k] / max(self.count[k], 1) for k in self.keys}

            def synced(self):
                totals = torch.tensor([self.total[k] for k in self.keys], dtype=torch.float64)
                counts = torch.tensor([float(self.count[k]) for k in self.keys], dtype=torch.float64)
                totals = hvd.allreduce(totals, op=hvd.Sum, name="tracker_totals")
                counts = hvd.allreduce(counts, op=hvd.Sum, name="tracker_counts")
                return dict(zip(self.keys, (totals / counts.clamp(min=1)).tolist()))
        """),
    "tpl/trainer.py": Source("""
        import torch
        import torch.nn.functional as F
        import horovod.torch as hvd
        from torch.utils.tensorboard import SummaryWriter

        from tpl.factory import SCHEDULER, build
        from tpl.metrics import MetricTracker, accuracy, top3


        class Trainer:
            def __init__(self, model, opts, train_loader, val_loader, train_sampler):
                self.model, self.opts = model, opts
                self.train_loader, self.val_loader, self.train_sampler = train_loader, val_loader, train_sampler
                optimizer = torch.optim.SGD(model.parameters(), lr=self.opts.lr, momentum=0.9)
                self.optimizer = hvd.DistributedOptimizer(optimizer, named_parameters=model.named_parameters())
                self.scheduler = build(SCHEDULER, torch.optim.lr_scheduler, self.optimizer)
                hvd.broadcast_parameters(model.state_dict(), root_rank=0)
                hvd.broadcast_optimizer_state(self.optimizer, root_rank=0)
                self.writer = SummaryWriter(opts.log_dir) if hvd.rank() == 0 else None
                self.metric_fns = [accuracy, top3]
                self.valid = MetricTracker("loss", "accuracy", "top3", writer=self.writer)

            def train_epoch(self, epoch):
                self.model.train()
                self.train_sampler.set_epoch(epoch)
                for x, y in self.train_loader:
                    x, y = x.cuda(), y.cuda()
                    self.optimizer.zero_grad()
                    loss = F.cross_entropy(self.model(x), y)
                    loss.backward()
                    self.optimizer.step()

            @torch.no_grad()
            def validate(self):
                self.model.eval()
                self.valid.reset()
                for x, y in self.val_loader:
                    x, y = x.cuda(), y.cuda()
                    out = self.model(x)
                    self.valid.update("loss", F.cross_entropy(out, y).item(), len(y))
                    for fn in self.metric_fns:
                        self.valid.update(fn.__name__, fn(out, y), len(y))
                return self.valid.synced()

            def fit(self):
                for epoch in range(self.opts.epochs):
                    self.train_epoch(epoch)
                    log = self.validate()
                    self.scheduler.step()
                    if hvd.rank() == 0:
                        print(epoch, log)
                        torch.save(self.model.state_dict(), f"{self.opts.save_dir}/epoch{epoch}.pt")
        """),
}


TORCH = {rel: Source(textwrap.dedent(text)) for rel, text in TORCH.items()}


def _torch(tmp_path, **edits):
    files = dict(TORCH)
    for rel, (old, new) in edits.items():
        files[rel.replace("__", "/") + ".py"] = files[rel.replace("__", "/") + ".py"].replace(old, new)
    return check_project(tmp_path, files)


def test_the_template_trainer_is_right_on_every_step(tmp_path):
    crash, flagged, findings = check_project(tmp_path, TORCH)
    assert crash is None and flagged == {}, {n: findings[n].evidence for n in flagged}


def test_visible_gpus_from_an_option_with_a_local_rank_pin_are_right_and_without_it_wrong(tmp_path):
    # a list of GPUs given as an option, the same on every rank; each rank picks its own among them
    _, flagged, findings = _torch(tmp_path / "pinned")
    assert 2 not in flagged, findings[2].evidence
    _, flagged, _ = _torch(tmp_path / "unpinned", train=("    torch.cuda.set_device(hvd.local_rank())\n", ""),
                           tpl__options=('"--gpus", default="0,1,2,3"', '"--gpus", default="0"'))
    assert flagged.get(2) in ("wrong", "missing")


def test_a_trackers_per_batch_log_inside_a_loop_over_metric_functions_is_progress(tmp_path):
    # `for fn in metric_fns: tracker.update(...)` inside the loop over batches still runs per batch: the
    # writer's add_scalar there is progress; the epoch's figures are the synced ones
    _, flagged, findings = _torch(tmp_path / "synced")
    assert 8 not in flagged, findings[8].evidence
    _, flagged, _ = _torch(tmp_path / "local",
                           tpl__trainer=("return self.valid.synced()", "return self.valid.result()"))
    assert flagged.get(8) == "missing"


def test_a_scheduler_built_by_name_from_torchs_scheduler_module_takes_no_training_step(tmp_path):
    # its .step() in the epoch loop is no optimizer step, so rank 0's save there is once an epoch, not every step
    _, flagged, findings = _torch(tmp_path / "rank0")
    assert 7 not in flagged, findings[7].evidence
    _, flagged, _ = _torch(tmp_path / "every", tpl__trainer=(
        "            if hvd.rank() == 0:\n                print(epoch, log)\n                torch.save(",
        "            print(epoch, log)\n            if True:\n                torch.save("))
    assert flagged.get(7) == "wrong"


def test_an_lr_scaled_on_the_options_the_trainer_keeps_counts_once_there(tmp_path):
    # `opts.lr = opts.lr * hvd.size()` in main; the Trainer reads `self.opts.lr`, the same object's attribute
    _, flagged, findings = _torch(tmp_path / "once")
    assert 4 not in flagged, findings[4].evidence
    _, flagged, findings = _torch(tmp_path / "twice",
                                  tpl__trainer=("lr=self.opts.lr,", "lr=self.opts.lr * hvd.size(),"))
    assert flagged.get(4) == "wrong" and "twice" in findings[4].evidence


KERAS = {
    "train.py": Source("""
        import keras
        import tensorflow as tf
        import horovod.tensorflow.keras as hvd

        from kt.config import load
        from kt.data import datasets
        from kt.models import build_model, get_optimizer


        def main():
            hvd.init()
            gpus = tf.config.list_physical_devices("GPU")
            if gpus:
                tf.config.set_visible_devices(gpus[hvd.local_rank()], "GPU")
            cfg = load()
            train_ds, val_ds = datasets(cfg.batch_size)
            model = build_model()
            cfg.optimizer.lr = cfg.optimizer.lr * hvd.size()
            opt = hvd.DistributedOptimizer(get_optimizer(cfg.optimizer))
            model.compile(optimizer=opt, loss="sparse_categorical_crossentropy", metrics=["accuracy"])
            callbacks = [hvd.callbacks.BroadcastGlobalVariablesCallback(0), hvd.callbacks.MetricAverageCallback()]
            if hvd.rank() == 0:
                callbacks.append(keras.callbacks.ModelCheckpoint("ckpt.keras"))
            hist = model.fit(train_ds, epochs=cfg.epochs, validation_data=val_ds, callbacks=callbacks,
                             verbose=1 if hvd.rank() == 0 else 0)
            if hvd.rank() == 0:
                for epoch, loss in enumerate(hist.history["val_loss"]):
                    print(f"epoch {epoch}: val_loss {loss:.4f}")


        if __name__ == "__main__":
            main()
        """),
    "kt/__init__.py": "",
    "kt/config.py": Source("""
        import copy

        DEFAULTS = {"optimizer": {"name": "adam", "lr": 1e-3}, "epochs": 3, "batch_size": 32}


        class Config(dict):
            def __getattr__(self, key):
                value = self[key]
                return Config(value) if isinstance(value, dict) and not isinstance(value, Config) else value

            def __setattr__(self, key, value):
                self[key] = value

            def __getitem__(self, key):
                value = dict.__getitem__(self, key)
                if isinstance(value, dict) and not isinstance(value, Config):
                    value = Config(value)
                    dict.__setitem__(self, key, value)
                return value


        def load():
            return Config(copy.deepcopy(DEFAULTS))
        """),
    "kt/data.py": Source("""
        import numpy as np
        import tensorflow as tf
        import horovod.tensorflow.keras as hvd


        def datasets(batch_size):
            rng = np.random.RandomState(0)
            x, y = rng.rand(2048, 16).astype("float32"), rng.randint(0, 4, 2048)
            train = tf.data.Dataset.from_tensor_slices((x[:1536], y[:1536])).shard(hvd.size(), hvd.rank())
            val = tf.data.Dataset.from_tensor_slices((x[1536:], y[1536:])).shard(hvd.size(), hvd.rank())
            return train.shuffle(512).batch(batch_size), val.batch(batch_size)
        """),
    "kt/models.py": Source("""
        import keras

        OPTIMIZERS = {"adam": keras.optimizers.Adam, "sgd": keras.optimizers.SGD}


        def build_model():
            return keras.Sequential([keras.layers.Dense(32, activation="relu"), keras.layers.Dense(4)])


        def get_optimizer(ocfg):
            return OPTIMIZERS[ocfg["name"]](learning_rate=ocfg["lr"])
        """),
}


KERAS = {rel: Source(textwrap.dedent(text)) for rel, text in KERAS.items()}


def _keras(tmp_path, old=None, new=None):
    files = dict(KERAS)
    if old is not None:
        files["train.py"] = files["train.py"].replace(old, new)
    return check_project(tmp_path, files)


def test_the_keras_template_is_right_on_every_step(tmp_path):
    crash, flagged, findings = _keras(tmp_path)
    assert crash is None and flagged == {}, {n: findings[n].evidence for n in flagged}


def test_an_lr_stored_on_an_attribute_dict_config_is_read_as_its_key(tmp_path):
    # `cfg.optimizer.lr = ...` stores the key that `get_optimizer(cfg.optimizer)` reads as `ocfg["lr"]`
    _, flagged, findings = _keras(tmp_path / "scaled")
    assert 4 not in flagged, findings[4].evidence
    _, flagged, _ = _keras(tmp_path / "unscaled", "    cfg.optimizer.lr = cfg.optimizer.lr * hvd.size()\n", "")
    assert flagged.get(4) == "missing"


def test_a_fit_history_printed_in_a_loop_is_averaged_by_metric_average_callback(tmp_path):
    _, flagged, findings = _keras(tmp_path / "averaged")
    assert 8 not in flagged, findings[8].evidence
    _, flagged, _ = _keras(tmp_path / "local", ", hvd.callbacks.MetricAverageCallback()]", "]")
    assert flagged.get(8) == "missing"
