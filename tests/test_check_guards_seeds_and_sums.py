"""`hvdkit check` on faults read from a blind held-out read (sets zzzs to zzzv), each as a broken/correct pair
written from scratch: a checkpoint guard joined by `or` to a periodic test, a summed metric put into a
results list and printed from it, a summed count that the report divides by and also prints, an evaluation
function in an engine module, a shuffle seeded from the round and the epoch, options parsed by a project
module, a schedule handed a step count made with hvd.size(), and a shard call Horovod does not have."""
import textwrap

from crash_scripts import Source, check, check_project
from hvdkit.check.static import analyze

TAPE = Source(textwrap.dedent("""
    import argparse
    import os

    import numpy as np
    import tensorflow as tf
    import horovod.tensorflow as hvd

    hvd.init()
    gpus = tf.config.list_physical_devices("GPU")
    if gpus:
        tf.config.set_visible_devices(gpus[hvd.local_rank()], "GPU")

    p = argparse.ArgumentParser()
    p.add_argument("--lr", type=float, default=0.01)
    p.add_argument("--steps", type=int, default=200)
    p.add_argument("--ckpt-every", type=int, default=50)
    p.add_argument("--ckpt-dir", default="ckpt")
    args = p.parse_args()

    x = np.random.RandomState(0).rand(4096, 16).astype("float32")
    y = (x.sum(1) > 8).astype("int32")
    ds = tf.data.Dataset.from_tensor_slices((x, y)).shard(hvd.size(), hvd.rank()).repeat().batch(32)
    model = tf.keras.Sequential([tf.keras.layers.Dense(32, activation="relu"), tf.keras.layers.Dense(2)])
    opt = tf.keras.optimizers.SGD(args.lr * hvd.size())
    loss_fn = tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True)
    ckpt = tf.train.Checkpoint(model=model, optimizer=opt)
    manager = tf.train.CheckpointManager(ckpt, args.ckpt_dir, max_to_keep=2)


    @tf.function
    def train_step(xb, yb, first):
        with tf.GradientTape() as tape:
            loss = loss_fn(yb, model(xb, training=True))
        tape = hvd.DistributedGradientTape(tape)
        grads = tape.gradient(loss, model.trainable_variables)
        opt.apply_gradients(zip(grads, model.trainable_variables))
        if first:
            hvd.broadcast_variables(model.variables, root_rank=0)
            hvd.broadcast_variables(opt.variables, root_rank=0)
        return loss


    results = []
    for step, (xb, yb) in enumerate(ds.take(args.steps)):
        loss = train_step(xb, yb, step == 0)
        if hvd.rank() == 0 and step % args.ckpt_every == 0:
            manager.save(checkpoint_number=step)
    acc = float(np.mean(np.argmax(model(x[hvd.rank()::hvd.size()]).numpy(), 1) == y[hvd.rank()::hvd.size()]))
    acc = hvd.allreduce(tf.constant(acc), op=hvd.Sum).numpy() / hvd.size()
    if hvd.rank() == 0:
        results.append({"steps": args.steps, "acc": float(acc)})
        print(results[-1])
"""))


def test_a_save_guard_joined_by_or_to_a_periodic_test_lets_every_rank_write(tmp_path):
    assert 7 not in check(tmp_path, TAPE)[1]
    either = TAPE.replace("if hvd.rank() == 0 and step % args.ckpt_every == 0:",
                          "if step % args.ckpt_every == 0 or hvd.rank() == 0:")
    (tmp_path / "either.py").write_text(either.lstrip())
    finding = analyze(str(tmp_path / "either.py"))[0][7]
    # at every 50th step every rank saves (and rank 0 at every step): the evidence names the alternative
    assert finding.verdict == "wrong" and "every rank writes" in finding.evidence
    assert "whenever `step % args.ckpt_every == 0` holds" in finding.evidence
    # a test alike on every step, joined by `or`, is not periodic: `--single` off, only rank 0 saves
    single = TAPE.replace('p.add_argument("--ckpt-dir", default="ckpt")\n',
                          'p.add_argument("--ckpt-dir", default="ckpt")\n'
                          'p.add_argument("--single", action="store_true")\n').replace(
        "if hvd.rank() == 0 and step % args.ckpt_every == 0:",
        "if (args.single or hvd.rank() == 0) and step % args.ckpt_every == 0:")
    assert 7 not in check(tmp_path, single)[1]


def test_a_summed_metric_put_into_a_results_list_and_printed_from_it(tmp_path):
    summed = TAPE.replace("op=hvd.Sum).numpy() / hvd.size()", "op=hvd.Sum).numpy()")
    assert check(tmp_path, summed)[1][8] == "wrong"  # results[-1] shows the sum of the ranks' accuracies
    assert 8 not in check(tmp_path, TAPE)[1]


BENCH = Source(textwrap.dedent("""
    import time

    import torch
    import torch.nn.functional as F
    import horovod.torch as hvd
    from torch.utils.data import DataLoader, TensorDataset
    from torch.utils.data.distributed import DistributedSampler


    def main():
        hvd.init()
        torch.set_num_threads(1)
        data = TensorDataset(torch.randn(2048, 32), torch.randint(0, 4, (2048,)))
        held = TensorDataset(torch.randn(512, 32), torch.randint(0, 4, (512,)))
        sampler = DistributedSampler(data, num_replicas=hvd.size(), rank=hvd.rank())
        loader = DataLoader(data, batch_size=64, sampler=sampler)
        model = torch.nn.Linear(32, 4)
        opt = torch.optim.SGD(model.parameters(), lr=0.05 * hvd.size())
        opt = hvd.DistributedOptimizer(opt, named_parameters=model.named_parameters())
        hvd.broadcast_parameters(model.state_dict(), root_rank=0)
        hvd.broadcast_optimizer_state(opt, root_rank=0)
        t = time.time()
        for step, (xb, yb) in enumerate(loader):
            opt.zero_grad()
            F.cross_entropy(model(xb), yb).backward()
            opt.step()
        rate = hvd.allreduce(torch.tensor(len(loader.dataset) / (time.time() - t)), op=hvd.Sum, name="rate")
        if hvd.rank() == 0:
            print("%.0f samples/s in all" % rate)
            torch.save(model.state_dict(), "model.pt")
        part = held.tensors[0][hvd.rank()::hvd.size()], held.tensors[1][hvd.rank()::hvd.size()]
        loss_sum, count = 0.0, 0.0
        with torch.no_grad():
            out = model(part[0])
            loss_sum += F.cross_entropy(out, part[1], reduction="sum").item()
            count += part[1].numel()
        tot = hvd.allreduce(torch.tensor([loss_sum, count], dtype=torch.float64), op=hvd.Sum, name="val")
        if hvd.rank() == 0:
            print("val loss %.4f over %d samples" % (tot[0] / tot[1], int(tot[1])))


    if __name__ == "__main__":
        main()
"""))


def test_a_summed_count_the_report_divides_by_is_printed_as_a_count(tmp_path):
    assert 8 not in check(tmp_path, BENCH)[1]  # tot[1] is the count the loss is divided by: its sum is right
    undivided = BENCH.replace("(tot[0] / tot[1], int(tot[1]))", "(tot[0], int(tot[1]))")
    assert check(tmp_path, undivided)[1][8] == "wrong"  # the summed loss printed as the loss


ENGINE = {
    "train.py": """
        import numpy as np
        import torch
        import horovod.torch as hvd

        from al.engine import evaluate, train_one_epoch
        from al.loaders import make_eval_loader, make_train_loader


        def main():
            hvd.init()
            torch.set_num_threads(1)
            data = np.load("pool.npz")
            x, y = torch.from_numpy(data["x"]), torch.from_numpy(data["y"])
            model = torch.nn.Linear(16, 3)
            opt = torch.optim.SGD(model.parameters(), lr=0.05 * hvd.size())
            opt = hvd.DistributedOptimizer(opt, named_parameters=model.named_parameters())
            hvd.broadcast_parameters(model.state_dict(), root_rank=0)
            hvd.broadcast_optimizer_state(opt, root_rank=0)
            loader, sampler = make_train_loader(x[:3500], y[:3500], 64)
            for epoch in range(3):
                sampler.set_epoch(epoch)
                train_one_epoch(model, opt, loader)
            acc = evaluate(model, make_eval_loader(x[3500:], y[3500:], 64))
            if hvd.rank() == 0:
                print("acc", acc)
                torch.save(model.state_dict(), "model.pt")


        if __name__ == "__main__":
            main()
    """,
    "al/__init__.py": "",
    "al/loaders.py": """
        import horovod.torch as hvd
        from torch.utils.data import DataLoader, TensorDataset
        from torch.utils.data.distributed import DistributedSampler


        def make_train_loader(x, y, batch_size):
            ds = TensorDataset(x, y)
            sampler = DistributedSampler(ds, num_replicas=hvd.size(), rank=hvd.rank(), shuffle=True)
            return DataLoader(ds, batch_size=batch_size, sampler=sampler), sampler


        def make_eval_loader(x, y, batch_size):
            ds = TensorDataset(x, y)
            sampler = DistributedSampler(ds, num_replicas=hvd.size(), rank=hvd.rank(), shuffle=False)
            return DataLoader(ds, batch_size=batch_size, sampler=sampler)
    """,
    "al/engine.py": """
        import torch
        import torch.nn.functional as F
        import horovod.torch as hvd


        def train_one_epoch(model, opt, loader):
            model.train()
            for xb, yb in loader:
                opt.zero_grad()
                F.cross_entropy(model(xb), yb).backward()
                opt.step()


        @torch.no_grad()
        def evaluate(model, loader):
            model.eval()
            counts = torch.zeros(2)
            for xb, yb in loader:
                counts += torch.tensor([(model(xb).argmax(1) == yb).sum().item(), yb.numel()])
            counts = hvd.allreduce(counts, op=hvd.Sum, name="acc")
            return (counts[0] / counts[1]).item()
    """,
}


def test_an_evaluation_in_an_engine_module_is_no_training_shard(tmp_path):
    assert 3 not in check_project(tmp_path / "ok", ENGINE)[1]
    unused = dict(ENGINE, **{"al/loaders.py": Source(textwrap.dedent(ENGINE["al/loaders.py"])).replace(
        "return DataLoader(ds, batch_size=batch_size, sampler=sampler), sampler",
        "return DataLoader(ds, batch_size=batch_size, shuffle=True), sampler")})
    # the training sampler is made and not given to its loader; the evaluation's is no partition of the training
    assert check_project(tmp_path / "unused", unused)[1][3] == "wrong"


STAGES = {
    "pipeline.py": """
        from types import SimpleNamespace

        import numpy as np

        from stages.runtime import setup
        from stages.train import train_stage


        def prepare(ctx, seed):
            x = np.random.RandomState(seed).rand(2048, 8).astype("float32")
            return SimpleNamespace(x=x, y=(x.sum(1) > 4).astype("int32"), round=0, workers=ctx.size)


        def run(seed=11, rounds=2):
            ctx = setup(seed)
            state = prepare(ctx, seed)
            for r in range(rounds):
                state.round = r
                train_stage(ctx, state, seed)


        if __name__ == "__main__":
            run()
    """,
    "stages/__init__.py": "",
    "stages/runtime.py": """
        from types import SimpleNamespace

        import tensorflow as tf
        import horovod.tensorflow as hvd


        def setup(seed):
            hvd.init()
            gpus = tf.config.list_physical_devices("GPU")
            if gpus:
                tf.config.set_visible_devices(gpus[hvd.local_rank()], "GPU")
            tf.random.set_seed(seed)
            return SimpleNamespace(rank=hvd.rank(), size=hvd.size())
    """,
    "stages/train.py": """
        import tensorflow as tf
        import horovod.tensorflow as hvd


        def _dataset(ctx, x, y, seed):
            ds = tf.data.Dataset.from_tensor_slices((x, y))
            ds = ds.shuffle(len(x), seed=seed, reshuffle_each_iteration=False)
            return ds.shard(ctx.size, ctx.rank).batch(32)


        def train_stage(ctx, state, seed):
            x, y = state.x, state.y
            model = tf.keras.Sequential([tf.keras.layers.Dense(16, activation="relu"), tf.keras.layers.Dense(2)])
            opt = tf.keras.optimizers.Adam(1e-3 * ctx.size)
            loss_fn = tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True)
            first = True
            for ep in range(2):
                for xb, yb in _dataset(ctx, x, y, seed=seed + 100 * state.round + ep):
                    with tf.GradientTape() as tape:
                        loss = loss_fn(yb, model(xb, training=True))
                    tape = hvd.DistributedGradientTape(tape)
                    grads = tape.gradient(loss, model.trainable_variables)
                    opt.apply_gradients(zip(grads, model.trainable_variables))
                    if first:
                        hvd.broadcast_variables(model.variables, root_rank=0)
                        hvd.broadcast_variables(opt.variables, root_rank=0)
                        first = False
            if ctx.rank == 0:
                model.save_weights("round_%d.weights.h5" % state.round)
            return model
    """,
}


def test_a_shuffle_seeded_from_the_round_and_the_epoch_is_alike_on_every_rank(tmp_path):
    assert 3 not in check_project(tmp_path / "ok", STAGES, "pipeline.py")[1]
    per_rank = dict(STAGES, **{"stages/train.py": Source(textwrap.dedent(STAGES["stages/train.py"])).replace(
        "seed=seed + 100 * state.round + ep)", "seed=seed + 100 * state.round + ep + ctx.rank)")})
    assert check_project(tmp_path / "rank", per_rank, "pipeline.py")[1][3] == "wrong"  # each its own order


OPTIONS = {
    "train.py": """
        import torch
        import torch.nn.functional as F
        import horovod.torch as hvd

        from sel import options


        def main():
            hvd.init()
            args = options.parse()
            torch.set_num_threads(1)
            x, y = torch.randn(2048, 16), torch.randint(0, 3, (2048,))
            part = x[hvd.rank()::hvd.size()], y[hvd.rank()::hvd.size()]
            model = torch.nn.Linear(16, 3)
            opt = torch.optim.SGD(model.parameters(), lr=args.lr, momentum=0.9)
            opt = hvd.DistributedOptimizer(opt, named_parameters=model.named_parameters())
            hvd.broadcast_parameters(model.state_dict(), root_rank=0)
            hvd.broadcast_optimizer_state(opt, root_rank=0)
            for epoch in range(args.epochs):
                for i in range(0, len(part[0]), 64):
                    opt.zero_grad()
                    F.cross_entropy(model(part[0][i:i + 64]), part[1][i:i + 64]).backward()
                    opt.step()
            if hvd.rank() == 0:
                torch.save(model.state_dict(), "model.pt")


        if __name__ == "__main__":
            main()
    """,
    "sel/__init__.py": "",
    "sel/options.py": """
        import argparse

        import horovod.torch as hvd

        BASE_LR = 0.01


        def parse(argv=None):
            p = argparse.ArgumentParser()
            p.add_argument("--lr", type=float, default=BASE_LR * hvd.size(), help="scaled by the ranks")
            p.add_argument("--epochs", type=int, default=3)
            return p.parse_args(argv)
    """,
}


def test_options_parsed_by_a_project_module_are_read_with_their_defaults(tmp_path):
    assert 4 not in check_project(tmp_path / "ok", OPTIONS)[1]  # --lr defaults to the scaled LR
    base = dict(OPTIONS, **{"sel/options.py": Source(textwrap.dedent(OPTIONS["sel/options.py"])).replace(
        "default=BASE_LR * hvd.size(), help=", "default=BASE_LR, help=")})
    assert check_project(tmp_path / "base", base)[1][4] == "missing"


SCHEDULE = {
    "train.py": """
        import tensorflow as tf
        import horovod.tensorflow.keras as hvd

        from morph.data import get_datasets
        from morph.schedules import build_schedule

        hvd.init()
        gpus = tf.config.list_physical_devices("GPU")
        if gpus:
            tf.config.set_visible_devices(gpus[hvd.local_rank()], "GPU")
        BASE_LR = 1e-3
        train_ds, steps_per_epoch = get_datasets(64, hvd.size(), hvd.rank())
        model = tf.keras.Sequential([tf.keras.layers.Dense(16, activation="relu"), tf.keras.layers.Dense(3)])
        opt = tf.keras.optimizers.Adam(learning_rate=build_schedule(BASE_LR * hvd.size(), steps_per_epoch))
        opt = hvd.DistributedOptimizer(opt)
        model.compile(optimizer=opt, loss=tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True))
        callbacks = [hvd.callbacks.BroadcastGlobalVariablesCallback(0)]
        if hvd.rank() == 0:
            callbacks.append(tf.keras.callbacks.ModelCheckpoint("ckpt.weights.h5", save_weights_only=True))
        model.fit(train_ds, epochs=3, steps_per_epoch=steps_per_epoch, callbacks=callbacks,
                  verbose=1 if hvd.rank() == 0 else 0)
    """,
    "morph/__init__.py": "",
    "morph/data.py": """
        import numpy as np
        import tensorflow as tf


        def get_datasets(batch, size, rank):
            x = np.random.RandomState(0).rand(4096, 8).astype("float32")
            y = (x.sum(1) * 3 // 8).astype("int32")
            ds = tf.data.Dataset.from_tensor_slices((x, y)).shard(size, rank).repeat().batch(batch)
            return ds, len(x) // (batch * size)
    """,
    "morph/schedules.py": """
        import keras
        import tensorflow as tf


        class Warmup(keras.optimizers.schedules.LearningRateSchedule):
            def __init__(self, base_lr, warmup_steps):
                self.base_lr = base_lr
                self.warmup_steps = warmup_steps

            def __call__(self, step):
                step = tf.cast(step, tf.float32)
                return self.base_lr * tf.minimum(1.0, (step + 1) / float(self.warmup_steps))


        def build_schedule(base_lr, steps_per_epoch):
            return Warmup(base_lr=base_lr, warmup_steps=2 * steps_per_epoch)
    """,
}


def test_a_step_count_made_with_the_size_does_not_scale_a_schedule(tmp_path):
    assert 4 not in check_project(tmp_path / "ok", SCHEDULE)[1]
    base = dict(SCHEDULE, **{"train.py": Source(textwrap.dedent(SCHEDULE["train.py"])).replace(
        "build_schedule(BASE_LR * hvd.size(), steps_per_epoch)", "build_schedule(BASE_LR, steps_per_epoch)")})
    # the warmup's length is counted in this rank's steps, made with hvd.size(): the LR it reaches is BASE_LR
    assert check_project(tmp_path / "base", base)[1][4] == "missing"


def test_a_sampler_horovod_does_not_have_crashes_the_shard_step(tmp_path):
    made = dict(ENGINE, **{"al/loaders.py": Source(textwrap.dedent(ENGINE["al/loaders.py"])).replace(
        "sampler = DistributedSampler(ds, num_replicas=hvd.size(), rank=hvd.rank(), shuffle=True)",
        "sampler = hvd.DistributedSampler(ds, num_replicas=hvd.size(), rank=hvd.rank(), shuffle=True)")})
    crash, flagged, _ = check_project(tmp_path / "hvd", made)
    assert "has no attribute 'DistributedSampler'" in crash["error"] and crash["file"] == "al/loaders.py"
    assert flagged[3] == "wrong"  # the shard's own call raises: no rank reads its part
    assert check_project(tmp_path / "ok", ENGINE)[0] is None


ROUNDS = Source(textwrap.dedent("""
    import torch
    import torch.nn.functional as F
    import horovod.torch as hvd


    def main(rounds=4, epochs=2):
        hvd.init()
        torch.set_num_threads(1)
        x, y = torch.randn(2048, 16), torch.randint(0, 3, (2048,))
        labeled = list(range(256))
        model = torch.nn.Sequential(torch.nn.Linear(16, 32), torch.nn.ReLU(), torch.nn.Linear(32, 3))
        opt = hvd.DistributedOptimizer(torch.optim.SGD(model.parameters(), lr=0.01 * hvd.size()),
                                       named_parameters=model.named_parameters())
        for rnd in range(rounds):
            if rnd > 0:
                model = torch.nn.Sequential(torch.nn.Linear(16, 32), torch.nn.ReLU(), torch.nn.Linear(32, 3))
                opt = hvd.DistributedOptimizer(torch.optim.SGD(model.parameters(), lr=0.01 * hvd.size()),
                                               named_parameters=model.named_parameters())
            hvd.broadcast_parameters(model.state_dict(), root_rank=0)
            hvd.broadcast_optimizer_state(opt, root_rank=0)
            mine = labeled[hvd.rank()::hvd.size()]
            for epoch in range(epochs):
                for i in range(0, len(mine), 32):
                    idx = mine[i:i + 32]
                    opt.zero_grad()
                    F.cross_entropy(model(x[idx]), y[idx]).backward()
                    opt.step()
            with torch.no_grad():
                scores = model(x).softmax(1).max(1).values
            labeled += [i for i in scores.argsort()[:128].tolist() if i not in labeled]
            if hvd.rank() == 0:
                torch.save(model.state_dict(), "round_%d.pt" % rnd)


    if __name__ == "__main__":
        main()
"""))


def test_a_broadcast_of_a_name_remade_each_round_covers_every_model_it_holds(tmp_path):
    assert 6 not in check(tmp_path, ROUNDS)[1]  # where it runs, `model` is the first model or a new one
    before = ROUNDS.replace("        hvd.broadcast_parameters(model.state_dict(), root_rank=0)\n", "").replace(
        "    for rnd in range(rounds):\n",
        "    hvd.broadcast_parameters(model.state_dict(), root_rank=0)\n    for rnd in range(rounds):\n")
    assert check(tmp_path, before)[1][6] == "wrong"  # the models of later rounds start apart


ATTACK = {
    "train.py": """
        import numpy as np
        import tensorflow as tf
        import horovod.tensorflow as hvd

        from robust.attack import pgd
        from robust.dist import sum_counts

        hvd.init()
        gpus = tf.config.list_physical_devices("GPU")
        if gpus:
            tf.config.set_visible_devices(gpus[hvd.local_rank()], "GPU")
        data = np.load("cifar_small.npz")
        train = tf.data.Dataset.from_tensor_slices((data["x"], data["y"])).shard(hvd.size(), hvd.rank()).batch(64)
        test = tf.data.Dataset.from_tensor_slices((data["xt"], data["yt"])).shard(hvd.size(), hvd.rank()).batch(256)
        model = tf.keras.Sequential([tf.keras.layers.Flatten(), tf.keras.layers.Dense(10)])
        loss_fn = tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True)
        opt = tf.keras.optimizers.Adam(1e-3 * hvd.size())
        ckpt = tf.train.Checkpoint(model=model, optimizer=opt)


        @tf.function
        def train_step(x, y, first):
            x_adv = pgd(model, loss_fn, x, y)
            with tf.GradientTape() as tape:
                loss = loss_fn(y, model(x_adv, training=True))
            tape = hvd.DistributedGradientTape(tape)
            grads = tape.gradient(loss, model.trainable_variables)
            opt.apply_gradients(zip(grads, model.trainable_variables))
            if first:
                hvd.broadcast_variables(model.variables, root_rank=0)
                hvd.broadcast_variables(opt.variables, root_rank=0)
            return loss


        first = True
        for epoch in range(3):
            for x, y in train:
                train_step(x, y, first)
                first = False
            robust = n = 0
            for x, y in test:
                x_adv = pgd(model, loss_fn, x, y)
                robust += int(tf.reduce_sum(tf.cast(tf.argmax(model(x_adv), 1) == y, tf.int32)))
                n += int(tf.shape(y)[0])
            robust, n = sum_counts(robust, n)
            if hvd.rank() == 0:
                print("epoch", epoch, "robust accuracy", robust / n)
                ckpt.write("ckpt/robust")
    """,
    "robust/__init__.py": "",
    "robust/attack.py": """
        import tensorflow as tf


        def pgd(model, loss_fn, x, y, eps=8 / 255, alpha=2 / 255, steps=7):
            x_adv = tf.clip_by_value(x + tf.random.uniform(tf.shape(x), -eps, eps), 0.0, 1.0)
            for _ in range(steps):
                with tf.GradientTape() as tape:
                    tape.watch(x_adv)
                    loss = loss_fn(y, model(x_adv, training=False))
                g = tape.gradient(loss, x_adv)
                x_adv = x_adv + alpha * tf.sign(g)
                x_adv = tf.clip_by_value(tf.clip_by_value(x_adv, x - eps, x + eps), 0.0, 1.0)
            return tf.stop_gradient(x_adv)
    """,
    "robust/dist.py": """
        import tensorflow as tf
        import horovod.tensorflow as hvd


        def sum_counts(*values):
            return hvd.allreduce(tf.constant([float(v) for v in values], tf.float64), op=hvd.Sum).numpy()
    """,
}


def test_an_attacks_input_gradient_is_no_parameter_gradient(tmp_path):
    # the attack adds the sign of the loss's gradient with respect to the input it watches: counts made from
    # the attacked input and summed over ranks are no summed gradients
    assert 5 not in check_project(tmp_path / "ok", ATTACK)[1]
    summed = dict(ATTACK, **{"train.py": Source(textwrap.dedent(ATTACK["train.py"])).replace(
        "hvd.DistributedGradientTape(tape)", "hvd.DistributedGradientTape(tape, op=hvd.Sum)")})
    assert check_project(tmp_path / "sum", summed)[1][5] == "wrong"  # on top of the LR times hvd.size()
