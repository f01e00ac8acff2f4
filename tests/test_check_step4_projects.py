"""`hvdkit check`, static pass, step 4 (the LR scaled by hvd.size()) judged across a project's modules.

What step 4 must achieve: the LR the optimizer trains with, from the first step and after every change a
schedule, a callback or an elastic reset makes, is the base LR times hvd.size(), unless the update is the
sequential one anyway (gradients summed, or a fixed global batch split over the ranks). Each pair below is a
small project written from scratch into tmp_path, the LR's value flowing through the project's modules: a
config module's constant, a runtime object's field, a mapping written before it is handed on, a schedule
class or helper that overwrites the LR. The correct one is not flagged on step 4, the broken one is.
"""
import textwrap

import pytest

from hvdkit.check import FLAGGED, OK, UNKNOWN, WRONG, MISSING
from hvdkit.check.static import analyze
from test_check_project import write

TORCH_MAIN = '''
    import horovod.torch as hvd
    import torch

    {imports}


    def main():
        hvd.init()
        model = torch.nn.Linear(4, 1)
        {build}
        optimizer = hvd.DistributedOptimizer(optimizer, named_parameters=model.named_parameters())
        hvd.broadcast_parameters(model.state_dict(), root_rank=0)
        for step in range(100):
            {each_step}
            optimizer.zero_grad()
            model(torch.randn(8, 4)).sum().backward()
            optimizer.step()


    if __name__ == "__main__":
        main()
'''


def torch_main(imports, build, each_step="pass"):
    return TORCH_MAIN.format(imports=imports, build=textwrap.indent(textwrap.dedent(build).strip(), " " * 8).strip(),
                             each_step=each_step)


def step4(path, root):
    findings, _, _ = analyze(str(path), root=str(root))
    return findings[4]


@pytest.mark.parametrize("lr, verdict", [
    ("BASE_LR * GLOBAL_BATCH / 64", OK),  # GLOBAL_BATCH = BATCH_PER_GPU * hvd.size()
    ("BASE_LR * BATCH_PER_GPU / 64", MISSING),
])
@pytest.mark.parametrize("read", ["import config as C|C.LR", "from config import LR|LR"])
def test_a_config_modules_lr_made_from_the_size(tmp_path, lr, verdict, read):
    imports, name = read.split("|")
    root = write(tmp_path, {
        "config.py": f'''
            import horovod.torch as hvd

            BATCH_PER_GPU = 16
            GLOBAL_BATCH = BATCH_PER_GPU * hvd.size()
            BASE_LR = 1e-3
            LR = {lr}
        ''',
        "train.py": torch_main(imports, f"optimizer = torch.optim.SGD(model.parameters(), lr={name})"),
    })
    got = step4(root / "train.py", root)
    assert got.verdict == verdict, got.evidence


def test_a_config_module_that_is_not_there_cannot_tell(tmp_path):
    """The same script without its config.py: the LR is config's, which could be scaled there."""
    root = write(tmp_path, {"train.py": torch_main("import config as C",
                                                   "optimizer = torch.optim.SGD(model.parameters(), lr=C.LR)")})
    got = step4(root / "train.py", root)
    assert got.verdict == UNKNOWN and "config" in got.evidence, got.evidence


@pytest.mark.parametrize("batch, verdict", [
    ("cfg_global_batch // self.rt.world_size", OK),  # a fixed global batch: the sequential update, unscaled LR
    ("cfg_global_batch", MISSING),  # each rank takes the whole batch: the global batch grows with the ranks
])
def test_a_trainer_module_splitting_a_fixed_global_batch(tmp_path, batch, verdict):
    root = write(tmp_path, {
        "engine/__init__.py": "",
        "engine/runtime.py": '''
            from dataclasses import dataclass

            import horovod.torch as hvd


            @dataclass
            class Runtime:
                rank: int
                world_size: int


            def start():
                hvd.init()
                return Runtime(hvd.rank(), hvd.size())
        ''',
        "engine/trainer.py": f'''
            import horovod.torch as hvd
            import torch
            from torch.utils.data import DataLoader, TensorDataset
            from torch.utils.data.distributed import DistributedSampler

            from .runtime import start


            class Trainer:
                def __init__(self, cfg_global_batch, lr):
                    self.rt = start()
                    self.local_batch = {batch}
                    data = TensorDataset(torch.randn(256, 4), torch.randn(256, 1))
                    sampler = DistributedSampler(data, num_replicas=self.rt.world_size, rank=self.rt.rank)
                    self.loader = DataLoader(data, batch_size=self.local_batch, sampler=sampler)
                    self.model = torch.nn.Linear(4, 1)
                    self.opt = torch.optim.Adam(self.model.parameters(), lr=lr)
                    self.opt = hvd.DistributedOptimizer(self.opt, named_parameters=self.model.named_parameters())
                    hvd.broadcast_parameters(self.model.state_dict(), root_rank=0)

                def fit(self):
                    for x, y in self.loader:
                        self.opt.zero_grad()
                        torch.nn.functional.mse_loss(self.model(x), y).backward()
                        self.opt.step()
        ''',
        "main.py": '''
            from engine.trainer import Trainer

            if __name__ == "__main__":
                Trainer(256, 1e-3).fit()
        ''',
    })
    got = step4(root / "main.py", root)
    assert got.verdict == verdict, got.evidence


SOLVER = '''
    import math


    class CosineWithRamp:
        """Sets every group's LR at each step: a linear ramp over `ramp` steps, then a cosine down to zero."""

        def __init__(self, optimizer, peak, total, ramp=50):
            self.optimizer = optimizer
            self.peak = peak
            self.total, self.ramp = total, ramp
            self.count = 0

        def current(self):
            if self.count < self.ramp:
                return self.peak * (self.count + 1) / self.ramp
            done = (self.count - self.ramp) / max(1, self.total - self.ramp)
            return self.peak * 0.5 * (1 + math.cos(math.pi * done))

        def step(self):
            self.count += 1
            value = self.current()
            for g in self.optimizer.param_groups:
                g["lr"] = value * g.get("scale", 1.0)
'''


@pytest.mark.parametrize("base_lr, verdict", [
    ("cfg['base_lr'] * hvd.size()", OK),
    ("cfg['base_lr']", WRONG),  # the optimizer's scaled LR is overwritten at every step
])
def test_a_schedule_class_overwriting_the_lr(tmp_path, base_lr, verdict):
    root = write(tmp_path, {
        "seg/__init__.py": "",
        "seg/solver.py": SOLVER,
        "seg/build.py": f'''
            import horovod.torch as hvd
            import torch

            from .solver import CosineWithRamp


            def build_optimizer(cfg, model):
                return torch.optim.SGD(model.parameters(), lr=cfg["base_lr"] * hvd.size())


            def build_scheduler(cfg, optimizer):
                return CosineWithRamp(optimizer, peak={base_lr}, total=cfg["iters"])
        ''',
        "train.py": torch_main(
            "from seg.build import build_optimizer, build_scheduler\n\n    CFG = dict(base_lr=0.01, iters=100)",
            """
            optimizer = build_optimizer(CFG, model)
            scheduler = build_scheduler(CFG, optimizer)
            """, each_step="scheduler.step()"),
    })
    got = step4(root / "train.py", root)
    assert got.verdict == verdict, got.evidence


@pytest.mark.parametrize("base, verdict", [("base_lr", OK), ("cfg['lr']", WRONG)])
def test_a_hand_written_schedule_sets_the_lr_from_the_value_it_is_handed(tmp_path, base, verdict):
    """`lr_at(step, base_lr)` whose parameter is spelled as the caller's scaled variable: the parameter holds
    what the call hands it, not a variable of the same name."""
    root = write(tmp_path, {
        "sched.py": '''
            import math


            def lr_at(step, base_lr, warmup=10, total=100):
                if step < warmup:
                    return base_lr * (step + 1) / warmup
                return 0.5 * base_lr * (1 + math.cos(math.pi * (step - warmup) / (total - warmup)))
        ''',
        "train.py": torch_main("from sched import lr_at\n\n    cfg = {\"lr\": 0.01}", """
            base_lr = cfg["lr"] * hvd.size()
            optimizer = torch.optim.Adam(model.parameters(), lr=base_lr)
            """, each_step=f"for group in optimizer.param_groups:\n                group['lr'] = lr_at(step, {base})"),
    })
    got = step4(root / "train.py", root)
    assert got.verdict == verdict, got.evidence


@pytest.mark.parametrize("scale, verdict", [('ocfg["lr"] = ocfg["lr"] * hvd.size()', OK), ("pass", MISSING)])
def test_a_mapping_scaled_before_a_project_module_reads_it(tmp_path, scale, verdict):
    """The entry written into the mapping (`ocfg["lr"] = ...`) is the one a factory module reads from its
    parameter: one dict, handed on."""
    root = write(tmp_path, {
        "optim.py": '''
            import torch


            def build_optimizer(cfg, model):
                return torch.optim.SGD(model.parameters(), lr=cfg["lr"], momentum=0.9)
        ''',
        "train.py": torch_main("import yaml\n\n    from optim import build_optimizer", f"""
            cfg = yaml.safe_load(open("cfg.yaml"))
            ocfg = cfg["optim"]
            {scale}
            optimizer = build_optimizer(ocfg, model)
            """),
    })
    got = step4(root / "train.py", root)
    assert got.verdict == verdict, got.evidence


KERAS_FIT = '''
    import horovod.tensorflow.keras as hvd
    import keras
    import numpy as np

    from helpers import make_callbacks


    def main():
        hvd.init()
        model = keras.Sequential([keras.layers.Dense(1)])
        lr = 0.01 * hvd.size()
        model.compile(optimizer=hvd.DistributedOptimizer(keras.optimizers.SGD(learning_rate=lr)), loss="mse")
        model.fit(np.zeros((64, 4)), np.zeros((64, 1)), epochs=3, callbacks=make_callbacks({given}))


    if __name__ == "__main__":
        main()
'''


@pytest.mark.parametrize("given, verdict", [("lr", OK), ("0.01", WRONG)])
def test_a_warmup_callback_made_in_a_helper_module(tmp_path, given, verdict):
    """initial_lr is the parameter `lr` of the helper: the value its caller hands it (scaled or not)."""
    root = write(tmp_path, {
        "helpers.py": '''
            import horovod.tensorflow.keras as hvd


            def make_callbacks(lr):
                return [hvd.callbacks.BroadcastGlobalVariablesCallback(0),
                        hvd.callbacks.LearningRateWarmupCallback(initial_lr=lr, warmup_epochs=2)]
        ''',
        "train.py": KERAS_FIT.format(given=given),
    })
    got = step4(root / "train.py", root)
    assert got.verdict == verdict, got.evidence


@pytest.mark.parametrize("reset, verdict", [
    ("lr.assign(args_lr * hvd.size())", OK),
    ("lr.assign(lr * hvd.size())", WRONG),  # the current LR, already scaled, times the new size at every reset
])
def test_an_elastic_reset_setting_the_lr_through_a_name(tmp_path, reset, verdict):
    root = write(tmp_path, {
        "train.py": f'''
            import horovod.tensorflow.keras as hvd
            import keras
            import numpy as np

            hvd.init()
            args_lr = 0.01
            model = keras.Sequential([keras.layers.Dense(1)])
            opt = hvd.DistributedOptimizer(keras.optimizers.SGD(learning_rate=args_lr * hvd.size()))
            model.compile(optimizer=opt, loss="mse")
            state = hvd.elastic.KerasState(model, epoch=0)


            def on_state_reset():
                lr = state.model.optimizer.learning_rate
                {reset}


            state.register_reset_callbacks([on_state_reset])


            @hvd.elastic.run
            def train(state):
                model.fit(np.zeros((64, 4)), np.zeros((64, 1)), epochs=3,
                          callbacks=[hvd.elastic.CommitStateCallback(state)])


            train(state)
        ''',
    })
    got = step4(root / "train.py", root)
    assert got.verdict == verdict, got.evidence


@pytest.mark.parametrize("lr, verdict", [("args.lr * hvd.size()", OK), ("args.lr", WRONG)])
def test_a_trainer_module_setting_a_tf_lr_variable_every_step(tmp_path, lr, verdict):
    """A trainer in a module assigns `lr_at(step, self.cfg["lr"])` to the optimizer's LR before every step: the
    config dict its caller builds decides, not the LR the optimizer was built with."""
    root = write(tmp_path, {
        "pinn/__init__.py": "from .trainer import Trainer\n",
        "pinn/trainer.py": '''
            import math

            import horovod.tensorflow as hvd
            import tensorflow as tf


            def lr_at(step, base_lr, total):
                return base_lr * 0.5 * (1 + math.cos(math.pi * step / total))


            class Trainer:
                def __init__(self, model, optimizer, cfg):
                    self.model, self.optimizer, self.cfg = model, optimizer, cfg
                    hvd.broadcast_variables(self.model.variables, root_rank=0)

                def fit(self, x, y, total):
                    for step in range(total):
                        self.optimizer.learning_rate.assign(lr_at(step, self.cfg["lr"], total))
                        with tf.GradientTape() as tape:
                            loss = tf.reduce_mean(tf.square(self.model(x) - y))
                        tape = hvd.DistributedGradientTape(tape)
                        grads = tape.gradient(loss, self.model.trainable_variables)
                        self.optimizer.apply_gradients(zip(grads, self.model.trainable_variables))
        ''',
        "train.py": f'''
            import argparse

            import horovod.tensorflow as hvd
            import keras
            import tensorflow as tf

            from pinn import Trainer


            def main():
                ap = argparse.ArgumentParser()
                ap.add_argument("--lr", type=float, default=1e-3)
                args = ap.parse_args()
                hvd.init()
                model = keras.Sequential([keras.layers.Dense(1)])
                optimizer = keras.optimizers.Adam(learning_rate=args.lr * hvd.size())
                cfg = dict(lr={lr}, warmup=100)
                Trainer(model, optimizer, cfg).fit(tf.zeros((8, 4)), tf.zeros((8, 1)), 1000)


            if __name__ == "__main__":
                main()
        ''',
    })
    got = step4(root / "train.py", root)
    assert got.verdict == verdict, got.evidence
    assert (got.verdict in FLAGGED) == (verdict == WRONG)
