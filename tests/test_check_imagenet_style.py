"""Shapes of the PyTorch projects grown from Horovod's ImageNet example, each where the checker told them wrong.

- Step 3: `train_loader, val_loader, sampler = make_loaders(cfg)` of a module that is not there, then
  `sampler.set_epoch(epoch)` (or `train_loader.sampler.set_epoch(epoch)`): set_epoch is a DistributedSampler's
  method, so the absent code builds one and may partition the data: "cannot tell", not "missing". Without
  the set_epoch call the loaders handed only the config still leave the data unsplit.
- Step 8: a `Metric` helper of a module that is not there, made before the loop over batches and updated with
  each batch's loss (`val_loss.update(...)`, reported as `val_loss.avg`): it may average over ranks (the
  example's Metric allreduces): "cannot tell". Defined in the script without an allreduce, it is missing.
- Crash: `args` bound by `global args` in main() and read in another function: an option the parser never
  declares is an AttributeError there; a declared one is not.
- Step 1: `dataclasses.fields(Config)` looks at a dataclass without making one: its `__post_init__` (which
  asks hvd.size()) does not run before hvd.init(). Making one there does.

Written from scratch for these tests."""
import textwrap

from hvdkit.check import MISSING, OK, UNKNOWN, WRONG
from hvdkit.check.static import analyze

from crash_scripts import check_project

LOADERS = '''
    """ImageNet ResNet.  horovodrun -np 8 python train.py"""
    import argparse

    import torch
    import torch.nn.functional as F
    import horovod.torch as hvd

    from fastin.data import make_loaders
    from fastin.models import resnet


    def main():
        parser = argparse.ArgumentParser()
        parser.add_argument("--epochs", type=int, default=90)
        parser.add_argument("--base-lr", type=float, default=0.0125)
        parser.add_argument("--resume", default="")
        args = parser.parse_args()
        hvd.init()
        torch.set_num_threads(1)
        train_loader, val_loader, {sampler} = make_loaders(args)
        model = resnet()
        if args.resume and hvd.rank() == 0:
            model.load_state_dict(torch.load(args.resume))
        optimizer = torch.optim.SGD(model.parameters(), lr=args.base_lr * hvd.size(), momentum=0.9)
        optimizer = hvd.DistributedOptimizer(optimizer, named_parameters=model.named_parameters())
        hvd.broadcast_parameters(model.state_dict(), root_rank=0)
        for epoch in range(args.epochs):
            {set_epoch}
            for images, target in train_loader:
                optimizer.zero_grad()
                F.cross_entropy(model(images), target).backward()
                optimizer.step()
            if hvd.rank() == 0:
                torch.save(model.state_dict(), f"checkpoint-{epoch}.pt")


    if __name__ == "__main__":
        main()
'''


def loaders(tmp_path, sampler="train_sampler", set_epoch="train_sampler.set_epoch(epoch)"):
    path = tmp_path / "train.py"
    path.write_text(textwrap.dedent(LOADERS.replace("{sampler}", sampler).replace("{set_epoch}", set_epoch)))
    (tmp_path / "setup.py").write_text("")
    return analyze(str(path))[0][3]


def test_set_epoch_on_a_sampler_absent_code_made_cannot_be_told(tmp_path):
    f = loaders(tmp_path)
    assert f.verdict == UNKNOWN and "set_epoch" in f.evidence and "make_loaders" in f.evidence, f


def test_set_epoch_on_the_sampler_of_a_loader_absent_code_made_cannot_be_told(tmp_path):
    f = loaders(tmp_path, sampler="_", set_epoch="train_loader.sampler.set_epoch(epoch)")
    assert f.verdict == UNKNOWN and "set_epoch" in f.evidence and "make_loaders" in f.evidence, f


def test_loaders_handed_only_the_config_without_a_sampler_are_unsplit(tmp_path):
    assert loaders(tmp_path, sampler="_", set_epoch="pass").verdict == MISSING


METRIC = '''
    """ImageNet validation loop.  horovodrun -np 8 python train.py"""
    import torch
    import torch.nn.functional as F
    import horovod.torch as hvd

    {import_metric}


    def validate(model, loader):
        model.eval()
        val_loss = Metric("val_loss")
        with torch.no_grad():
            for images, target in loader:
                val_loss.update(F.cross_entropy(model(images), target))
                print(f"val loss {val_loss.avg.item():.4f}")
        return val_loss.avg.item()


    def main():
        hvd.init()
        torch.set_num_threads(1)
        data = torch.utils.data.TensorDataset(torch.randn(512, 16), torch.randint(0, 10, (512,)))
        val = torch.utils.data.TensorDataset(torch.randn(128, 16), torch.randint(0, 10, (128,)))
        train_sampler = torch.utils.data.distributed.DistributedSampler(data, num_replicas=hvd.size(),
                                                                        rank=hvd.rank())
        val_sampler = torch.utils.data.distributed.DistributedSampler(val, num_replicas=hvd.size(),
                                                                      rank=hvd.rank(), shuffle=False)
        train_loader = torch.utils.data.DataLoader(data, batch_size=32, sampler=train_sampler)
        val_loader = torch.utils.data.DataLoader(val, batch_size=32, sampler=val_sampler)
        model = torch.nn.Linear(16, 10)
        optimizer = hvd.DistributedOptimizer(torch.optim.SGD(model.parameters(), lr=0.01 * hvd.size()),
                                             named_parameters=model.named_parameters())
        hvd.broadcast_parameters(model.state_dict(), root_rank=0)
        for epoch in range(3):
            train_sampler.set_epoch(epoch)
            for x, y in train_loader:
                optimizer.zero_grad()
                F.cross_entropy(model(x), y).backward()
                optimizer.step()
            validate(model, val_loader)


    if __name__ == "__main__":
        main()
'''

LOCAL_METRIC = '''class Metric:
        def __init__(self, name):
            self.name, self.sum, self.n = name, torch.tensor(0.0), torch.tensor(0.0)

        def update(self, val):
            self.sum += val.detach()
            self.n += 1

        @property
        def avg(self):
            return self.sum / self.n'''


def metric(tmp_path, import_metric):
    path = tmp_path / "train.py"
    path.write_text(textwrap.dedent(METRIC).replace("{import_metric}", textwrap.dedent(import_metric)))
    (tmp_path / "setup.py").write_text("")
    return analyze(str(path))[0][8]


def test_an_absent_modules_metric_accumulator_cannot_be_told(tmp_path):
    f = metric(tmp_path, "from utils import Metric")
    assert f.verdict == UNKNOWN and "Metric('val_loss')" in f.evidence, f


def test_a_local_accumulator_that_never_averages_is_missing(tmp_path):
    f = metric(tmp_path, LOCAL_METRIC)
    assert f.verdict == MISSING, f


GLOBAL_ARGS = '''
    """MobileNet fine-tuning.  horovodrun -np 4 python train.py"""
    import argparse
    import math

    import torch
    import horovod.torch as hvd

    parser = argparse.ArgumentParser()
    parser.add_argument("--epochs", type=int, default=10)
    parser.add_argument("--lr", type=float, default=0.001)
    parser.add_argument("--warmup-epoch", type=int, default=2)


    def adjust_learning_rate(optimizer, epoch):
        if epoch < args.{option}:
            factor = (epoch + 1) / args.{option}
        else:
            factor = 0.5 * (1 + math.cos(math.pi * epoch / args.epochs))
        for group in optimizer.param_groups:
            group["lr"] = args.lr * hvd.size() * factor


    def main():
        global args
        args = parser.parse_args()
        hvd.init()
        torch.set_num_threads(1)
        model = torch.nn.Linear(8, 2)
        optimizer = hvd.DistributedOptimizer(torch.optim.SGD(model.parameters(), lr=args.lr * hvd.size()),
                                             named_parameters=model.named_parameters())
        hvd.broadcast_parameters(model.state_dict(), root_rank=0)
        x = torch.randn(64, 8)[hvd.rank()::hvd.size()]
        for epoch in range(args.epochs):
            adjust_learning_rate(optimizer, epoch)
            optimizer.zero_grad()
            model(x).sum().backward()
            optimizer.step()


    if __name__ == "__main__":
        main()
'''


def test_an_undeclared_option_of_a_global_namespace_crashes(tmp_path):
    path = tmp_path / "train.py"
    path.write_text(textwrap.dedent(GLOBAL_ARGS.replace("{option}", "warmup_epochs")))
    crash = analyze(str(path))[2]["crash"]
    assert crash and "warmup_epochs" in crash["error"], crash


def test_a_declared_option_of_a_global_namespace_does_not(tmp_path):
    path = tmp_path / "train.py"
    path.write_text(textwrap.dedent(GLOBAL_ARGS.replace("{option}", "warmup_epoch")))
    assert analyze(str(path))[2]["crash"] is None


FIELDS = '''
    """Flowers classifier.  horovodrun -np 4 python train.py"""
    import argparse
    import dataclasses

    import tensorflow as tf
    import keras

    from flowers.runtime import init_horovod
    from flowers.config import Config


    def main():
        ap = argparse.ArgumentParser()
        for f in dataclasses.fields(Config):
            ap.add_argument("--" + f.name.replace("_", "-"), type=f.type, default=f.default)
        overrides = vars(ap.parse_args())
        {early}
        rank, size = init_horovod()
        cfg = Config(**overrides)
        model = keras.Sequential([keras.layers.Dense(4)])
        opt = keras.optimizers.SGD(cfg.peak_lr)
        print(rank, size, opt, model)


    if __name__ == "__main__":
        main()
'''

CONFIG = '''
    from dataclasses import dataclass

    import horovod.tensorflow as hvd


    @dataclass
    class Config:
        base_lr: float = 3e-4
        batch_size: int = 32

        def __post_init__(self):
            self.peak_lr = self.base_lr * hvd.size()
'''

RUNTIME = '''
    import horovod.tensorflow as hvd


    def init_horovod():
        hvd.init()
        return hvd.rank(), hvd.size()
'''


def fields_step1(tmp_path, early="pass"):
    files = {"train.py": FIELDS.replace("{early}", early), "flowers/__init__.py": "",
             "flowers/config.py": CONFIG, "flowers/runtime.py": RUNTIME}
    return check_project(tmp_path, files, script="train.py")[2][1]


def test_looking_at_a_dataclasss_fields_does_not_run_its_post_init(tmp_path):
    f = fields_step1(tmp_path)
    assert f.verdict == OK, f


def test_making_the_dataclass_before_init_asks_horovod_too_early(tmp_path):
    f = fields_step1(tmp_path, early="probe = Config()")
    assert f.verdict == WRONG and "size()" in f.evidence, f
