"""Crashes that the run with the defaults reaches (issue 39, item 5), from the blind set zzzi:

1. An undeclared option read in a schedule function called each step, inside `if epoch <
   args.warmup_epochs:`: with --warmup-epochs at its default the first step takes that branch, so
   `args.warmup_iters` raises AttributeError. The same with the read alone in the function's `return` (a
   function in whose body the walk records nothing). Declared, or behind a branch the default run does not
   take, it is no crash.
2. A dataclass config whose field's `default_factory` asks `hvd.size()`, made before hvd.init(): the
   generated __init__ runs the factory there, and Horovod raises ValueError. Made after init, it is no
   crash (and its global batch, 64 * hvd.size() kept through `dataclasses.replace`, takes the scaled LR).
Before these rules none of the three broken scripts reported a crash.

Written from scratch for these tests."""
import pytest

from crash_scripts import Source, check, line_of

SCHEDULE = Source('''
    """Person re-identification with a warm-up: horovodrun -np 4 python train_reid.py"""
    import argparse

    import horovod.torch as hvd
    import torch
    from torch import nn
    from torch.utils.data import DataLoader, TensorDataset
    from torch.utils.data.distributed import DistributedSampler


    def parse_args():
        p = argparse.ArgumentParser("reid")
        p.add_argument("--lr", type=float, default=3.5e-4)
        p.add_argument("--warmup-epochs", type=int, default=#WARMUP#)
        p.add_argument("--epochs", type=int, default=60)
        #DECLARE#
        return p.parse_args()


    def main():
        args = parse_args()
        hvd.init()
        torch.manual_seed(0)
        data = TensorDataset(torch.randn(2048, 128), torch.randint(0, 200, (2048,)))
        sampler = DistributedSampler(data, num_replicas=hvd.size(), rank=hvd.rank())
        loader = DataLoader(data, batch_size=64, sampler=sampler)
        steps, world = len(loader), hvd.size()
        model = nn.Sequential(nn.Linear(128, 256), nn.ReLU(), nn.Linear(256, 200))
        opt = torch.optim.Adam(model.parameters(), lr=args.lr * hvd.size())
        hvd.broadcast_parameters(model.state_dict(), root_rank=0)
        hvd.broadcast_optimizer_state(opt, root_rank=0)
        opt = hvd.DistributedOptimizer(opt, named_parameters=model.named_parameters())

        def lr_at(epoch, it):
            #BODY#
            return args.lr * world * 0.1 ** (epoch // 20)

        for epoch in range(args.epochs):
            sampler.set_epoch(epoch)
            for it, (x, y) in enumerate(loader):
                for group in opt.param_groups:
                    group["lr"] = lr_at(epoch, it)
                opt.zero_grad()
                nn.functional.cross_entropy(model(x), y).backward()
                opt.step()
            if hvd.rank() == 0:
                torch.save(model.state_dict(), "reid.pt")


    if __name__ == "__main__":
        main()
''')

WARMUP_BRANCH = '''if epoch < args.warmup_epochs:
                return args.lr * world * min(1.0, (epoch * steps + it + 1) / args.warmup_iters)'''
ONLY_RETURN = "return args.lr * world * (epoch * steps + it + 1) / args.warmup_iters  # no call here"


def script(body, warmup="10", declare="pass"):
    return SCHEDULE.replace("#BODY#", body).replace("#WARMUP#", warmup).replace("#DECLARE#", declare)


@pytest.mark.parametrize("body", [WARMUP_BRANCH, ONLY_RETURN])
def test_an_undeclared_option_the_default_run_reads_is_a_crash(tmp_path, body):
    broken = script(body)
    crash, flagged = check(tmp_path, broken)
    assert crash["line"] == line_of(broken, "args.warmup_iters")
    assert crash["error"] == "AttributeError: 'Namespace' object has no attribute 'warmup_iters'"
    assert flagged == {}


@pytest.mark.parametrize("warmup, declare", [
    ("10", 'p.add_argument("--warmup-iters", type=int, default=500)'),
    ("0", "pass"),  # no warm-up by default: the branch that reads the option is not taken
])
def test_a_declared_option_or_a_branch_the_defaults_skip_is_no_crash(tmp_path, warmup, declare):
    crash, flagged = check(tmp_path, script(WARMUP_BRANCH, warmup, declare))
    assert crash is None and flagged == {}


CONFIG = Source('''
    """Metric learning with a config dataclass: horovodrun -np 4 python train_tape.py"""
    import argparse
    import dataclasses

    import horovod.tensorflow as hvd
    import tensorflow as tf


    @dataclasses.dataclass
    class Config:
        data_dir: str = "data/market"
        base_lr: float = 3.5e-4
        global_batch: int = dataclasses.field(default_factory=lambda: 64 * hvd.size())
        steps: int = 1000


    def parse(cfg):
        p = argparse.ArgumentParser()
        p.add_argument("--data-dir", default=cfg.data_dir)
        a = p.parse_args()
        return dataclasses.replace(cfg, data_dir=a.data_dir)


    def main():
        #BEFORE#
        hvd.init()
        #AFTER#
        gpus = tf.config.list_physical_devices("GPU")
        if gpus:
            tf.config.set_visible_devices(gpus[hvd.local_rank()], "GPU")
        x = tf.random.normal((4096, 32))
        y = tf.random.uniform((4096,), maxval=10, dtype=tf.int32)
        local = cfg.global_batch // hvd.size()
        ds = tf.data.Dataset.from_tensor_slices((x, y)).shard(hvd.size(), hvd.rank()).repeat().batch(local)
        model = tf.keras.Sequential([tf.keras.layers.Dense(64, activation="relu"), tf.keras.layers.Dense(10)])
        opt = tf.keras.optimizers.Adam(cfg.base_lr * hvd.size())
        loss_fn = tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True)
        for step, (xb, yb) in enumerate(ds.take(cfg.steps)):
            with tf.GradientTape() as tape:
                loss = loss_fn(yb, model(xb, training=True))
            tape = hvd.DistributedGradientTape(tape)
            grads = tape.gradient(loss, model.trainable_variables)
            opt.apply_gradients(zip(grads, model.trainable_variables))
            if step == 0:
                hvd.broadcast_variables(model.variables, root_rank=0)
                hvd.broadcast_variables(opt.variables, root_rank=0)
        if hvd.rank() == 0:
            model.save_weights("embed.weights.h5")


    if __name__ == "__main__":
        main()
''')


def test_a_config_whose_factory_asks_the_size_made_before_init_is_a_crash(tmp_path):
    broken = CONFIG.replace("#BEFORE#", "cfg = parse(Config())").replace("#AFTER#", "pass")
    crash, flagged = check(tmp_path, broken)
    assert crash["line"] == line_of(broken, "default_factory=lambda: 64 * hvd.size()")
    assert crash["error"] == "ValueError: Horovod has not been initialized; use hvd.init()."
    assert flagged == {1: "wrong"}  # a query before init: step 1 as the labels have it


def test_the_config_made_after_init_is_no_crash(tmp_path):
    crash, flagged = check(tmp_path, CONFIG.replace("#BEFORE#", "pass").replace("#AFTER#", "cfg = parse(Config())"))
    assert crash is None and flagged == {}
