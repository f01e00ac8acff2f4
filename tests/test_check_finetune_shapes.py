"""`hvdkit check` on shapes of fine-tuning and notebook-exported code (blind sets zzc and zzd, read at
dce8aea): what each step computes, followed through tables, helpers and phases.

- step 4: an LR table filled entry by entry and decayed in a comprehension, set into each param group every
  epoch; param groups built by a helper in a loop over (name, module, lr) tuples; a dataclass field whose
  `default_factory` scales the LR;
- step 7: the weights written with numpy (`np.savez(path, **{name: weights})`) are a checkpoint;
- step 6: a builder that broadcasts the model it returns (`model, opt = build()`) makes no new model; rank 0
  reloading the best weights between phases, where the next broadcast runs only in the first phase;
- step 2: CPU threads set per rank do not pin the GPU a script uses when there is one.

Each broken script beside its correct twin, written from scratch for these tests; every test fails with its
rule taken back."""
import textwrap

from crash_scripts import Source, check


def src(text):
    return Source(textwrap.dedent(text).lstrip())


LAYERWISE = src('''
    import math

    import torch
    import torch.nn as nn
    import torch.nn.functional as F
    import horovod.torch as hvd

    LAYERS = ("body", "head")


    def layer_lrs(base_lr, epoch, epochs):
        top = base_lr * hvd.size()
        lrs = {}
        for depth, name in enumerate(reversed(LAYERS)):
            lrs[name] = top * (0.5 ** depth)
        if epoch > 0:
            lrs = {k: v * 0.5 * (1 + math.cos(math.pi * epoch / epochs)) for k, v in lrs.items()}
        return lrs


    def main(base_lr=0.01, epochs=3):
        hvd.init()
        torch.set_num_threads(1)
        model = nn.ModuleDict({"body": nn.Linear(8, 8), "head": nn.Linear(8, 2)})
        groups = [{"params": model[name].parameters(), "name": name, "lr": 0.0} for name in LAYERS]
        optimizer = torch.optim.SGD(groups, lr=0.0, momentum=0.9)
        optimizer = hvd.DistributedOptimizer(optimizer, named_parameters=model.named_parameters())
        hvd.broadcast_parameters(model.state_dict(), root_rank=0)
        x = torch.randn(512, 8)[hvd.rank()::hvd.size()]
        y = torch.randint(0, 2, (512,))[hvd.rank()::hvd.size()]
        for epoch in range(epochs):
            lrs = layer_lrs(base_lr, epoch, epochs)
            for g in optimizer.param_groups:
                g["lr"] = lrs[g["name"]]
            for i in range(0, len(x), 32):
                optimizer.zero_grad()
                F.cross_entropy(model["head"](model["body"](x[i:i + 32])), y[i:i + 32]).backward()
                optimizer.step()
            if hvd.rank() == 0:
                torch.save(model.state_dict(), "lw.pt")


    if __name__ == "__main__":
        main()
''')


def test_an_lr_table_filled_entry_by_entry_and_set_each_epoch(tmp_path):
    assert check(tmp_path, LAYERWISE)[1] == {}
    assert check(tmp_path, LAYERWISE.replace("top = base_lr * hvd.size()", "top = base_lr"))[1] == {4: "missing"}


GROUPS = src('''
    import torch
    import torch.nn as nn
    import torch.nn.functional as F
    import horovod.torch as hvd


    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.backbone = nn.Linear(8, 8)
            self.head = nn.Linear(8, 2)

        def forward(self, x):
            return self.head(torch.relu(self.backbone(x)))


    def param_groups(model, lr, backbone_mult=0.1):
        lr = lr * hvd.size()
        groups = []
        for name, module, group_lr in (("backbone", model.backbone, lr * backbone_mult), ("head", model.head, lr)):
            groups.append({"params": list(module.parameters()), "lr": group_lr, "name": name})
        return groups


    def main(lr=1e-3):
        hvd.init()
        torch.set_num_threads(1)
        model = Net()
        groups = param_groups(model, lr)
        optimizer = torch.optim.AdamW(groups)
        optimizer = hvd.DistributedOptimizer(optimizer, named_parameters=model.named_parameters())
        hvd.broadcast_parameters(model.state_dict(), root_rank=0)
        x = torch.randn(256, 8)[hvd.rank()::hvd.size()]
        y = torch.randint(0, 2, (256,))[hvd.rank()::hvd.size()]
        for i in range(0, len(x), 16):
            optimizer.zero_grad()
            F.cross_entropy(model(x[i:i + 16]), y[i:i + 16]).backward()
            optimizer.step()
        if hvd.rank() == 0:
            torch.save(model.state_dict(), "ft.pt")


    if __name__ == "__main__":
        main()
''')


def test_param_groups_built_by_a_helper_in_a_loop_over_tuples(tmp_path):
    assert check(tmp_path, GROUPS)[1] == {}
    assert check(tmp_path, GROUPS.replace("    lr = lr * hvd.size()\n", ""))[1] == {4: "missing"}


FACTORY = src('''
    from dataclasses import dataclass, field

    import torch
    import torch.nn.functional as F
    import horovod.torch as hvd


    @dataclass
    class Config:
        batch_size: int = 32
        lr: float = field(default_factory=lambda: 1e-3 * hvd.size())


    def main():
        hvd.init()
        torch.set_num_threads(1)
        cfg = Config()
        model = torch.nn.Linear(8, 2)
        opt = torch.optim.SGD(model.parameters(), lr=cfg.lr)
        opt = hvd.DistributedOptimizer(opt, named_parameters=model.named_parameters())
        hvd.broadcast_parameters(model.state_dict(), root_rank=0)
        x = torch.randn(256, 8)[hvd.rank()::hvd.size()]
        y = torch.randint(0, 2, (256,))[hvd.rank()::hvd.size()]
        for i in range(0, len(x), cfg.batch_size):
            opt.zero_grad()
            F.cross_entropy(model(x[i:i + cfg.batch_size]), y[i:i + cfg.batch_size]).backward()
            opt.step()
        if hvd.rank() == 0:
            torch.save(model.state_dict(), "m.pt")


    if __name__ == "__main__":
        main()
''')


def test_an_lr_field_scaled_by_its_default_factory(tmp_path):
    assert check(tmp_path, FACTORY)[1] == {}
    assert check(tmp_path, FACTORY.replace("lambda: 1e-3 * hvd.size()", "lambda: 1e-3"))[1] == {4: "missing"}


NUMPY_WEIGHTS = src('''
    import os

    import numpy as np
    import tensorflow as tf
    import keras
    import horovod.tensorflow as hvd

    hvd.init()
    gpus = tf.config.list_physical_devices("GPU")
    if gpus:
        tf.config.set_visible_devices(gpus[hvd.local_rank()], "GPU")
    x = np.random.default_rng(0).random((512, 8)).astype("float32")[hvd.rank()::hvd.size()]
    y = (x[:, 0] > 0.5).astype("int64")
    model = keras.Sequential([keras.Input((8,)), keras.layers.Dense(2)])
    opt = keras.optimizers.SGD(0.01 * hvd.size())
    loss_fn = keras.losses.SparseCategoricalCrossentropy(from_logits=True)
    for epoch in range(2):
        for i in range(0, len(x), 32):
            with tf.GradientTape() as tape:
                loss = loss_fn(y[i:i + 32], model(x[i:i + 32], training=True))
            tape = hvd.DistributedGradientTape(tape)
            grads = tape.gradient(loss, model.trainable_variables)
            opt.apply_gradients(zip(grads, model.trainable_variables))
            if epoch == 0 and i == 0:
                hvd.broadcast_variables(model.variables, root_rank=0)
                hvd.broadcast_variables(opt.variables, root_rank=0)
        WRITE
''')
SAVEZ = 'np.savez(os.path.join("out", "weights.npz"), **{v.name: v.numpy() for v in model.trainable_variables})'


def test_weights_written_with_numpy_are_a_checkpoint(tmp_path):
    on_rank0 = "if hvd.rank() == 0:\n            " + SAVEZ
    assert check(tmp_path, NUMPY_WEIGHTS.replace("WRITE", on_rank0))[1] == {}
    assert check(tmp_path, NUMPY_WEIGHTS.replace("WRITE", SAVEZ))[1] == {7: "wrong"}


BUILDER = src('''
    import torch
    import torch.nn.functional as F
    import horovod.torch as hvd


    def build(lr):
        model = torch.nn.Linear(8, 2)
        opt = torch.optim.Adam(model.parameters(), lr=lr * hvd.size())
        opt = hvd.DistributedOptimizer(opt, named_parameters=model.named_parameters())
        hvd.broadcast_parameters(model.state_dict(), root_rank=0)
        hvd.broadcast_optimizer_state(opt, root_rank=0)
        return model, opt


    def main():
        hvd.init()
        torch.set_num_threads(1)
        model, opt = build(1e-3)
        REBUILD
        x = torch.randn(256, 8)[hvd.rank()::hvd.size()]
        y = torch.randint(0, 2, (256,))[hvd.rank()::hvd.size()]
        for i in range(0, len(x), 16):
            opt.zero_grad()
            F.cross_entropy(model(x[i:i + 16]), y[i:i + 16]).backward()
            opt.step()
        if hvd.rank() == 0:
            torch.save(model.state_dict(), "m.pt")


    if __name__ == "__main__":
        main()
''')


def test_a_builder_that_broadcasts_what_it_returns_makes_no_new_model(tmp_path):
    assert check(tmp_path, BUILDER.replace("REBUILD", "pass"))[1] == {}
    fresh = "model = torch.nn.Linear(8, 2)\n    opt = hvd.DistributedOptimizer(torch.optim.Adam(" \
        "model.parameters(), lr=1e-3 * hvd.size()), named_parameters=model.named_parameters())"
    assert check(tmp_path, BUILDER.replace("REBUILD", fresh))[1] == {6: "wrong"}


PHASES = src('''
    import os

    import numpy as np
    import tensorflow as tf
    import keras
    import horovod.tensorflow as hvd

    hvd.init()
    gpus = tf.config.list_physical_devices("GPU")
    if gpus:
        tf.config.set_visible_devices(gpus[hvd.local_rank()], "GPU")
    rng = np.random.default_rng(0)
    x = rng.random((512, 8)).astype("float32")[hvd.rank()::hvd.size()]
    y = (x[:, 0] > 0.5).astype("int64")
    model = keras.Sequential([keras.Input((8,)), keras.layers.Dense(8, name="body"), keras.layers.Dense(2)])
    loss_fn = keras.losses.SparseCategoricalCrossentropy(from_logits=True)
    best_path = "best.weights.h5"


    def run_phase(name, optimizer, epochs):
        for epoch in range(epochs):
            for i in range(0, len(x), 32):
                with tf.GradientTape() as tape:
                    loss = loss_fn(y[i:i + 32], model(x[i:i + 32], training=True))
                tape = hvd.DistributedGradientTape(tape)
                grads = tape.gradient(loss, model.trainable_variables)
                optimizer.apply_gradients(zip(grads, model.trainable_variables))
                if name == "head" and epoch == 0 and i == 0:
                    hvd.broadcast_variables(model.variables, root_rank=0)
                    hvd.broadcast_variables(optimizer.variables, root_rank=0)
            if hvd.rank() == 0:
                model.save_weights(best_path)


    run_phase("head", keras.optimizers.Adam(1e-3 * hvd.size()), 2)
    if hvd.rank() == 0:
        model.load_weights(best_path)
    AFTER
    run_phase("finetune", keras.optimizers.Adam(1e-4 * hvd.size()), 2)
''')


def test_rank_0_reloading_between_phases_with_the_broadcast_in_the_first_phase_only(tmp_path):
    assert check(tmp_path, PHASES.replace("AFTER", "pass"))[1] == {6: "wrong"}
    again = "hvd.broadcast_variables(model.variables, root_rank=0)"
    assert check(tmp_path, PHASES.replace("AFTER", again))[1] == {}


THREADS = src('''
    import torch
    import torch.nn.functional as F
    import horovod.torch as hvd


    def setup():
        hvd.init()
        torch.set_num_threads(2)
        PIN
        return torch.device("cuda" if torch.cuda.is_available() else "cpu")


    def main():
        device = setup()
        model = torch.nn.Linear(8, 2).to(device)
        opt = torch.optim.SGD(model.parameters(), lr=0.01 * hvd.size())
        opt = hvd.DistributedOptimizer(opt, named_parameters=model.named_parameters())
        hvd.broadcast_parameters(model.state_dict(), root_rank=0)
        x = torch.randn(256, 8)[hvd.rank()::hvd.size()]
        y = torch.randint(0, 2, (256,))[hvd.rank()::hvd.size()]
        for i in range(0, len(x), 16):
            opt.zero_grad()
            F.cross_entropy(model(x[i:i + 16].to(device)), y[i:i + 16].to(device)).backward()
            opt.step()
        if hvd.rank() == 0:
            torch.save(model.state_dict(), "m.pt")


    if __name__ == "__main__":
        main()
''')


def test_threads_per_rank_do_not_pin_the_gpu_a_script_uses(tmp_path):
    assert check(tmp_path, THREADS.replace("PIN", "pass"))[1] == {2: "missing"}
    pin = "if torch.cuda.is_available():\n        torch.cuda.set_device(hvd.local_rank())"
    assert check(tmp_path, THREADS.replace("PIN", pin))[1] == {}
