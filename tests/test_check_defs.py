"""`hvdkit check`, static pass: names read by their definitions, not by their spelling (issue 39, class 3).

Each pair is a script written from scratch in the shape real training code has (argparse flags with
defaults, functions per phase or per model, imports inside functions): the broken one is flagged on its
step only, its correct twin on none. Before the definition layer, functions were keyed by bare name (the
first `step` won, a second nested `step` was never walked), assignments by their spelling over every
scope, parameters of the same name merged across functions, and an import alias taken for the whole file.
"""
import textwrap

from hvdkit.check import FLAGGED
from hvdkit.check.static import analyze


def _flagged(tmp_path, source, name="train.py"):
    path = tmp_path / name
    path.write_text(textwrap.dedent(source))
    findings, _, _ = analyze(str(path))
    return {n: f.evidence for n, f in findings.items() if f.verdict in FLAGGED}


TWO_PHASES = '''
    """Fine-tunes a pretrained classifier on 8 ranks: a first pass measures the loss, a second trains.

        horovodrun -np 8 python finetune.py --epochs 3
    """
    import argparse

    import tensorflow as tf
    import horovod.tensorflow as hvd


    def parse_args():
        p = argparse.ArgumentParser()
        p.add_argument("--lr", type=float, default=1e-3)
        p.add_argument("--epochs", type=int, default=3)
        p.add_argument("--ckpt", default="checkpoints/finetune")
        return p.parse_args()


    def measure(model, data):
        @tf.function
        def step(x, y):
            return tf.reduce_mean(tf.keras.losses.sparse_categorical_crossentropy(y, model(x)))

        total = 0.0
        for x, y in data.take(20):
            total += step(x, y)
        return total / 20


    def finetune(model, opt, data, epochs, ckpt):
        @tf.function
        def step(x, y, first):
            with tf.GradientTape() as tape:
                loss = tf.reduce_mean(tf.keras.losses.sparse_categorical_crossentropy(y, model(x)))
            tape = hvd.DistributedGradientTape(tape)
            grads = tape.gradient(loss, model.trainable_variables)
            opt.apply_gradients(zip(grads, model.trainable_variables))
            if first:
                hvd.broadcast_variables(model.variables, root_rank=0)
                hvd.broadcast_variables(opt.variables, root_rank=0)
            return loss

        for epoch in range(epochs):
            total, count = 0.0, 0
            for batch, (x, y) in enumerate(data):
                total += step(x, y, epoch == 0 and batch == 0)
                count += 1
            mean = hvd.allreduce(total / count)
            if hvd.rank() == 0:
                print(f"epoch {epoch} loss {mean:.4f}")
                ckpt.save(f"checkpoints/epoch-{epoch}")


    def main():
        args = parse_args()
        hvd.init()
        gpus = tf.config.list_physical_devices("GPU")
        if gpus:
            tf.config.set_visible_devices(gpus[hvd.local_rank()], "GPU")
        (x, y), _ = tf.keras.datasets.cifar10.load_data()
        data = tf.data.Dataset.from_tensor_slices((x / 255.0, y)).shard(hvd.size(), hvd.rank()).shuffle(
            10000).batch(64)
        model = tf.keras.applications.MobileNetV2(weights=None, classes=10, input_shape=(32, 32, 3))
        opt = tf.keras.optimizers.Adam(args.lr * hvd.size())
        print("initial loss", float(hvd.allreduce(measure(model, data))))
        finetune(model, opt, data, args.epochs, tf.train.Checkpoint(model=model, optimizer=opt))


    if __name__ == "__main__":
        main()
'''
WRAP = "            tape = hvd.DistributedGradientTape(tape)\n"


def test_a_second_nested_function_of_the_same_name_is_walked(tmp_path):
    """measure() and finetune() each define their own `step`: the call in finetune runs finetune's, whose
    wrapped tape and first-batch broadcast are steps 5 and 6."""
    assert _flagged(tmp_path, TWO_PHASES) == {}
    assert list(_flagged(tmp_path, TWO_PHASES.replace(WRAP, ""))) == [5]


DISTILL = '''
    """Distils a ResNet teacher into a small student on every rank; both are trained.

        horovodrun -np 4 python distill.py --teacher-lr 0.1 --student-lr 0.01
    """
    import argparse

    import torch
    import torch.nn.functional as F
    import horovod.torch as hvd
    from torch.utils.data import DataLoader, TensorDataset
    from torch.utils.data.distributed import DistributedSampler


    def teacher_optimizer(teacher, args):
        lr = args.teacher_lr * hvd.size()
        opt = torch.optim.SGD(teacher.parameters(), lr=lr, momentum=0.9)
        return hvd.DistributedOptimizer(opt, named_parameters=teacher.named_parameters())


    def student_optimizer(student, args):
        lr = args.student_lr * hvd.size()
        opt = torch.optim.SGD(student.parameters(), lr=lr)
        return hvd.DistributedOptimizer(opt, named_parameters=student.named_parameters())


    def main():
        p = argparse.ArgumentParser()
        p.add_argument("--teacher-lr", type=float, default=0.1)
        p.add_argument("--student-lr", type=float, default=0.01)
        p.add_argument("--epochs", type=int, default=2)
        args = p.parse_args()
        hvd.init()
        torch.set_num_threads(1)
        data = TensorDataset(torch.randn(512, 1, 28, 28), torch.randint(0, 10, (512,)))
        sampler = DistributedSampler(data, num_replicas=hvd.size(), rank=hvd.rank())
        loader = DataLoader(data, batch_size=32, sampler=sampler)
        teacher = torch.nn.Sequential(torch.nn.Flatten(), torch.nn.Linear(784, 256), torch.nn.ReLU(),
                                      torch.nn.Linear(256, 10))
        student = torch.nn.Sequential(torch.nn.Flatten(), torch.nn.Linear(784, 10))
        t_opt, s_opt = teacher_optimizer(teacher, args), student_optimizer(student, args)
        for m, o in ((teacher, t_opt), (student, s_opt)):
            hvd.broadcast_parameters(m.state_dict(), root_rank=0)
            hvd.broadcast_optimizer_state(o, root_rank=0)
        for epoch in range(args.epochs):
            sampler.set_epoch(epoch)
            for x, y in loader:
                t_opt.zero_grad()
                F.cross_entropy(teacher(x), y).backward()
                t_opt.step()
                s_opt.zero_grad()
                loss = F.kl_div(F.log_softmax(student(x), 1), F.softmax(teacher(x).detach(), 1), reduction="batchmean")
                loss.backward()
                s_opt.step()
            loss = hvd.allreduce(loss.detach(), name="loss")
            if hvd.rank() == 0:
                print(epoch, loss.item())
                torch.save({"teacher": teacher.state_dict(), "student": student.state_dict()}, "distill.pt")


    if __name__ == "__main__":
        main()
'''


def test_a_name_assigned_in_another_function_is_not_this_one(tmp_path):
    """`lr` of teacher_optimizer is scaled; `lr` of student_optimizer is its own variable: only its assignments
    count."""
    assert _flagged(tmp_path, DISTILL) == {}
    broken = DISTILL.replace("lr = args.student_lr * hvd.size()", "lr = args.student_lr")
    assert list(_flagged(tmp_path, broken)) == [4]


LOGGED_LR = '''
    """Trains a small MLP; the configuration is logged once by rank 0.

        horovodrun -np 2 python mlp.py --lr 0.05
    """
    import argparse

    import torch
    import horovod.torch as hvd
    from torch.utils.data import DataLoader, TensorDataset
    from torch.utils.data.distributed import DistributedSampler


    def log_config(lr, batch_size):
        if hvd.rank() == 0:
            print(f"global batch {batch_size * hvd.size()}, lr {lr}")


    def make_optimizer(model, lr):
        opt = torch.optim.SGD(model.parameters(), lr=lr, momentum=0.9)
        return hvd.DistributedOptimizer(opt, named_parameters=model.named_parameters())


    def main():
        p = argparse.ArgumentParser()
        p.add_argument("--lr", type=float, default=0.05)
        p.add_argument("--batch-size", type=int, default=64)
        p.add_argument("--epochs", type=int, default=3)
        args = p.parse_args()
        hvd.init()
        torch.set_num_threads(1)
        model = torch.nn.Sequential(torch.nn.Linear(20, 64), torch.nn.ReLU(), torch.nn.Linear(64, 2))
        log_config(args.lr * hvd.size(), args.batch_size)
        opt = make_optimizer(model, args.lr * hvd.size())
        hvd.broadcast_parameters(model.state_dict(), root_rank=0)
        data = TensorDataset(torch.randn(1024, 20), torch.randint(0, 2, (1024,)))
        sampler = DistributedSampler(data, num_replicas=hvd.size(), rank=hvd.rank())
        loader = DataLoader(data, batch_size=args.batch_size, sampler=sampler)
        for epoch in range(args.epochs):
            sampler.set_epoch(epoch)
            for x, y in loader:
                opt.zero_grad()
                loss = torch.nn.functional.cross_entropy(model(x), y)
                loss.backward()
                opt.step()
            loss = hvd.allreduce(loss.detach())
            if hvd.rank() == 0:
                print(epoch, loss.item())
                torch.save(model.state_dict(), f"mlp-{epoch}.pt")


    if __name__ == "__main__":
        main()
'''


def test_a_parameter_is_bound_per_function(tmp_path):
    """log_config(lr=...) gets the scaled LR; make_optimizer(lr=...) its own argument: a parameter of the same
    name in another function says nothing about it."""
    assert _flagged(tmp_path, LOGGED_LR) == {}
    broken = LOGGED_LR.replace("make_optimizer(model, args.lr * hvd.size())", "make_optimizer(model, args.lr)")
    assert list(_flagged(tmp_path, broken)) == [4]


TWO_FRAMEWORKS = '''
    """One entry for both frameworks: `--framework torch` or `--framework keras`.

        horovodrun -np 2 python both.py --framework torch
    """
    import argparse


    def train_torch(args):
        import torch
        import horovod.torch as hvd
        hvd.init()
        torch.set_num_threads(1)
        model = torch.nn.Linear(10, 2)
        data = torch.utils.data.TensorDataset(torch.randn(256, 10), torch.randint(0, 2, (256,)))
        sampler = torch.utils.data.distributed.DistributedSampler(data, num_replicas=hvd.size(), rank=hvd.rank())
        loader = torch.utils.data.DataLoader(data, batch_size=32, sampler=sampler)
        opt = torch.optim.SGD(model.parameters(), lr=args.lr * hvd.size())
        opt = hvd.DistributedOptimizer(opt, named_parameters=model.named_parameters())
        hvd.broadcast_parameters(model.state_dict(), root_rank=0)
        for epoch in range(args.epochs):
            sampler.set_epoch(epoch)
            for x, y in loader:
                opt.zero_grad()
                torch.nn.functional.cross_entropy(model(x), y).backward()
                opt.step()
            if hvd.rank() == 0:
                torch.save(model.state_dict(), "torch.pt")


    def train_keras(args):
        import tensorflow as tf
        import horovod.tensorflow.keras as hvd
        hvd.init()
        tf.config.threading.set_intra_op_parallelism_threads(1)
        x, y = tf.random.normal((256, 10)), tf.random.uniform((256,), maxval=2, dtype=tf.int32)
        data = tf.data.Dataset.from_tensor_slices((x, y)).shard(hvd.size(), hvd.rank()).batch(32)
        model = tf.keras.Sequential([tf.keras.Input((10,)), tf.keras.layers.Dense(2)])
        opt = hvd.DistributedOptimizer(tf.keras.optimizers.SGD(args.lr * hvd.size()))
        model.compile(optimizer=opt, loss=tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True))
        callbacks = [hvd.callbacks.BroadcastGlobalVariablesCallback(0), hvd.callbacks.MetricAverageCallback()]
        if hvd.rank() == 0:
            callbacks.append(tf.keras.callbacks.ModelCheckpoint("keras-{epoch}.keras"))
        model.fit(data, epochs=args.epochs, callbacks=callbacks, verbose=2 if hvd.rank() == 0 else 0)


    if __name__ == "__main__":
        p = argparse.ArgumentParser()
        p.add_argument("--framework", choices=("torch", "keras"), default="torch")
        p.add_argument("--lr", type=float, default=0.01)
        p.add_argument("--epochs", type=int, default=2)
        args = p.parse_args()
        if args.framework == "torch":
            train_torch(args)
        else:
            train_keras(args)
'''


def test_an_import_inside_a_function_names_that_functions_module(tmp_path):
    """`hvd` is horovod.torch in train_torch and horovod.tensorflow.keras in train_keras: torch's
    DistributedOptimizer takes named_parameters= (Keras' does not)."""
    assert _flagged(tmp_path, TWO_FRAMEWORKS) == {}
    broken = TWO_FRAMEWORKS.replace("named_parameters=model", "named_params=model")
    assert list(_flagged(tmp_path, broken)) == [5]


def test_origins_follow_a_value_through_parameters_and_attributes(tmp_path):
    """Facts.origins: `self.model` of a Trainer and `model` of an optimizer factory both come from the one
    Net(...) made in main(), through the parameters of the walked calls and the attribute assigned."""
    import ast

    from hvdkit.check.facts import Facts
    from hvdkit.check.static import load

    path = tmp_path / "train.py"
    path.write_text(textwrap.dedent('''
        import horovod.torch as hvd
        import torch


        def make_optimizer(model, lr):
            return torch.optim.SGD(model.parameters(), lr=lr)


        class Trainer:
            def __init__(self, model, other):
                self.model = model
                hvd.broadcast_parameters(self.model.state_dict(), root_rank=0)


        def main():
            hvd.init()
            net, other = torch.nn.Linear(4, 2), torch.nn.Linear(4, 2)
            opt = make_optimizer(net, 0.1)
            Trainer(net, other)


        main()
    '''))
    f = Facts(load(str(path)))
    cast = next(e for e in f.s.events if e.api and e.api[1] == "broadcast_parameters")
    params = next(e for e in f.s.events if getattr(e.node.func, "attr", "") == "parameters")
    broadcast, trained = f.origins(cast.node.args[0].func.value), f.origins(params.node.func.value)
    assert [ast.unparse(n) for n in broadcast] == ["torch.nn.Linear(4, 2)"] and broadcast == trained
    other = next(n for n in ast.walk(f.s.tree) if isinstance(n, ast.Name) and n.id == "other"
                 and isinstance(n.ctx, ast.Load))
    assert f.origins(other) != trained  # the other Linear: same text, another object


CALLBACKS = '''
    """Keras fit with callbacks built by a helper and given to fit under other names.

        horovodrun -np 4 python fit.py --epochs 10
    """
    import argparse

    import horovod.tensorflow.keras as hvd
    import tensorflow as tf


    def make_callbacks(out):
        common = [hvd.callbacks.BroadcastGlobalVariablesCallback(0)]
        rank0 = []
        if hvd.rank() == 0:
            rank0.append(tf.keras.callbacks.ModelCheckpoint(out + "/model-{epoch}.keras"))
        return common, rank0


    def main():
        p = argparse.ArgumentParser()
        p.add_argument("--epochs", type=int, default=10)
        p.add_argument("--out", default="checkpoints")
        args = p.parse_args()
        hvd.init()
        gpus = tf.config.list_physical_devices("GPU")
        if gpus:
            tf.config.set_visible_devices(gpus[hvd.local_rank()], "GPU")
        (x, y), _ = tf.keras.datasets.fashion_mnist.load_data()
        data = tf.data.Dataset.from_tensor_slices((x[..., None] / 255.0, y)).shard(hvd.size(), hvd.rank()).batch(64)
        model = tf.keras.Sequential([tf.keras.Input((28, 28, 1)), tf.keras.layers.Flatten(), tf.keras.layers.Dense(10)])
        opt = hvd.DistributedOptimizer(tf.keras.optimizers.Adam(1e-3 * hvd.size()))
        model.compile(optimizer=opt, loss=tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True))
        everyone, only_rank0 = make_callbacks(args.out)
        model.fit(data, epochs=args.epochs, callbacks=everyone + only_rank0 + [hvd.callbacks.MetricAverageCallback()],
                  verbose=2 if hvd.rank() == 0 else 0)


    if __name__ == "__main__":
        main()
'''


def test_callbacks_built_under_one_name_and_passed_under_another_reach_fit(tmp_path):
    """`common` of make_callbacks is `everyone` of main, given to fit: its broadcast callback is passed."""
    assert _flagged(tmp_path, CALLBACKS) == {}
    broken = CALLBACKS.replace("callbacks=everyone + only_rank0 +", "callbacks=only_rank0 +")
    assert list(_flagged(tmp_path, broken)) == [6]


POLICY = '''
    """ResNet-ish training with a step LR policy, one checkpoint per epoch.

        horovodrun -np 4 python train.py --epochs 90
    """
    import argparse

    import horovod.torch as hvd
    import torch
    import torch.nn.functional as F
    from torch.utils.data import DataLoader, TensorDataset
    from torch.utils.data.distributed import DistributedSampler


    def main():
        p = argparse.ArgumentParser()
        p.add_argument("--epochs", type=int, default=90)
        p.add_argument("--lr", type=float, default=0.1)
        args = p.parse_args()
        hvd.init()
        torch.set_num_threads(1)
        data = TensorDataset(torch.randn(2048, 64), torch.randint(0, 10, (2048,)))
        sampler = DistributedSampler(data, num_replicas=hvd.size(), rank=hvd.rank())
        loader = DataLoader(data, batch_size=64, sampler=sampler)
        model = torch.nn.Sequential(torch.nn.Linear(64, 128), torch.nn.ReLU(), torch.nn.Linear(128, 10))
        opt = torch.optim.SGD(model.parameters(), lr=args.lr * hvd.size(), momentum=0.9)
        opt = hvd.DistributedOptimizer(opt, named_parameters=model.named_parameters())
        lr_policy = torch.optim.lr_scheduler.StepLR(opt, step_size=30, gamma=0.1)
        hvd.broadcast_parameters(model.state_dict(), root_rank=0)
        for epoch in range(args.epochs):
            sampler.set_epoch(epoch)
            total = 0.0
            for x, y in loader:
                opt.zero_grad()
                loss = F.cross_entropy(model(x), y)
                loss.backward()
                opt.step()
                total += loss.item()
            lr_policy.step()
            mean = hvd.allreduce(torch.tensor(total / len(loader)), name="loss").item()
            if hvd.rank() == 0:
                print(f"epoch {epoch}: loss {mean:.4f}")
                torch.save({"model": model.state_dict(), "epoch": epoch}, "checkpoint.pt")


    if __name__ == "__main__":
        main()
'''


def test_a_scheduler_is_known_by_what_made_it_not_by_its_name(tmp_path):
    """`lr_policy` is a StepLR: its per-epoch step() is no optimizer step, so the per-epoch checkpoint is not
    "written at every step". A save inside the batch loop is."""
    assert _flagged(tmp_path, POLICY) == {}
    broken = POLICY.replace("                total += loss.item()\n", "                total += loss.item()\n"
                            "                if hvd.rank() == 0:\n"
                            "                    torch.save(model.state_dict(), \"last.pt\")\n")
    assert list(_flagged(tmp_path, broken)) == [7]


TWO_STAGES = '''
    """Pretrains an encoder, then fine-tunes a classifier on it; each stage its own Trainer class.

        horovodrun -np 4 python stages.py
    """
    import argparse

    import horovod.torch as hvd
    import torch
    import torch.nn.functional as F
    from torch.utils.data import DataLoader, TensorDataset
    from torch.utils.data.distributed import DistributedSampler


    class Pretrainer:
        def __init__(self, args, encoder):
            self.encoder = encoder
            self.lr = args.pretrain_lr * hvd.size()
            opt = torch.optim.Adam(encoder.parameters(), lr=self.lr)
            self.opt = hvd.DistributedOptimizer(opt, named_parameters=encoder.named_parameters())
            hvd.broadcast_parameters(encoder.state_dict(), root_rank=0)

        def run(self, loader, sampler, epochs):
            for epoch in range(epochs):
                sampler.set_epoch(epoch)
                for x, _ in loader:
                    self.opt.zero_grad()
                    F.mse_loss(self.encoder(x), x[:, :16]).backward()
                    self.opt.step()


    class Finetuner:
        def __init__(self, args, model):
            self.model = model
            self.lr = args.finetune_lr * hvd.size()
            opt = torch.optim.SGD(model.parameters(), lr=self.lr, momentum=0.9)
            self.opt = hvd.DistributedOptimizer(opt, named_parameters=model.named_parameters())
            hvd.broadcast_parameters(model.state_dict(), root_rank=0)

        def run(self, loader, sampler, epochs):
            for epoch in range(epochs):
                sampler.set_epoch(epoch)
                for x, y in loader:
                    self.opt.zero_grad()
                    loss = F.cross_entropy(self.model(x), y)
                    loss.backward()
                    self.opt.step()
                loss = hvd.allreduce(loss.detach(), name="loss")
                if hvd.rank() == 0:
                    print(epoch, loss.item())
                    torch.save(self.model.state_dict(), f"finetuned-{epoch}.pt")


    def main():
        p = argparse.ArgumentParser()
        p.add_argument("--pretrain-lr", type=float, default=1e-3)
        p.add_argument("--finetune-lr", type=float, default=0.01)
        args = p.parse_args()
        hvd.init()
        torch.set_num_threads(1)
        data = TensorDataset(torch.randn(1024, 32), torch.randint(0, 4, (1024,)))
        sampler = DistributedSampler(data, num_replicas=hvd.size(), rank=hvd.rank())
        loader = DataLoader(data, batch_size=32, sampler=sampler)
        encoder = torch.nn.Sequential(torch.nn.Linear(32, 16), torch.nn.ReLU())
        Pretrainer(args, encoder).run(loader, sampler, 5)
        model = torch.nn.Sequential(encoder, torch.nn.Linear(16, 4))
        Finetuner(args, model).run(loader, sampler, 3)


    if __name__ == "__main__":
        main()
'''


def test_self_attributes_of_one_class_are_not_another_classs(tmp_path):
    """Pretrainer's `self.lr` and Finetuner's `self.lr` are attributes of different objects: an unscaled
    one is not made scaled by the other class's assignment."""
    assert _flagged(tmp_path, TWO_STAGES) == {}
    broken = TWO_STAGES.replace("self.lr = args.pretrain_lr * hvd.size()", "self.lr = args.pretrain_lr")
    assert list(_flagged(tmp_path, broken)) == [4]


# The options namespace reaches the training function through main(args) and an update function; a data
# module of the project binds its own local `args` (a bare object handed to a builder). Read by spelling,
# that other `args` made the namespace unprovable and the --device option's default (None) unseen.
DEVICE_OPTION = {
    "graphs.py": '''
        """Graph data sets for contrastive pre-training."""
        import torch
        from torch.utils.data import Dataset


        def build(spec):
            return [torch.randn(16, 8) for _ in range(spec.size)]


        class WalkDataset(Dataset):
            def __init__(self, size):
                class Spec:
                    pass
                args = Spec()
                args.size = size
                self.items = build(args)

            def __len__(self):
                return len(self.items)

            def __getitem__(self, i):
                return self.items[i], i % 2
        ''',
    "pretrain.py": '''
        """Contrastive pre-training on 8 GPUs: horovodrun -np 8 python pretrain.py --epochs 2"""
        import argparse

        import torch
        import horovod.torch as hvd
        from torch.utils.data import DataLoader, DistributedSampler

        from graphs import WalkDataset


        def parse_option():
            p = argparse.ArgumentParser()
            p.add_argument("--epochs", type=int, default=2)
            p.add_argument("--lr", type=float, default=0.01)
            p.add_argument("--device", type=str, default=None, help="cuda device for the batches")
            return p.parse_args()


        def option_update(opt):
            opt.run_name = f"lr{opt.lr}"
            return opt


        def train_epoch(model, loader, optimizer, opt):
            for x, y in loader:
                x = x.to(torch.device(opt.device))
                loss = torch.nn.functional.cross_entropy(model(x).mean(1), y.cuda())
                optimizer.zero_grad()
                loss.backward()
                optimizer.step()


        def main(args):
            args = option_update(args)
            hvd.init()
            torch.cuda.set_device(hvd.local_rank())
            data = WalkDataset(512)
            sampler = DistributedSampler(data, num_replicas=hvd.size(), rank=hvd.rank())
            loader = DataLoader(data, batch_size=16, sampler=sampler)
            model = torch.nn.Linear(8, 2).cuda()
            optimizer = torch.optim.SGD(model.parameters(), lr=args.lr * hvd.size())
            optimizer = hvd.DistributedOptimizer(optimizer, named_parameters=model.named_parameters())
            hvd.broadcast_parameters(model.state_dict(), root_rank=0)
            hvd.broadcast_optimizer_state(optimizer, root_rank=0)
            for epoch in range(args.epochs):
                sampler.set_epoch(epoch)
                train_epoch(model, loader, optimizer, args)
                if hvd.rank() == 0:
                    torch.save(model.state_dict(), f"{args.run_name}-{epoch}.pt")


        if __name__ == "__main__":
            args = parse_option()
            main(args)
        ''',
}


def test_an_option_reached_through_calls_is_not_lost_to_another_modules_name(tmp_path):
    """`x.to(torch.device(opt.device))` with --device defaulting to None: every rank's batches on one GPU
    (or a TypeError); with the local rank's device, nothing to flag."""
    for rel, source in DEVICE_OPTION.items():
        (tmp_path / rel).write_text(textwrap.dedent(source).lstrip("\n"))
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'walks'\n")
    findings, _, info = analyze(str(tmp_path / "pretrain.py"))
    assert "graphs.py" in info["files_read"] and info["crash"] is None, info
    flagged = {n: f for n, f in findings.items() if f.verdict in FLAGGED}
    assert list(flagged) == [2] and "--device" in flagged[2].evidence and flagged[2].line == 26, flagged
    fixed = DEVICE_OPTION["pretrain.py"].replace("torch.device(opt.device)", 'torch.device("cuda", hvd.local_rank())')
    (tmp_path / "pretrain.py").write_text(textwrap.dedent(fixed).lstrip("\n"))
    assert {n: f.evidence for n, f in analyze(str(tmp_path / "pretrain.py"))[0].items() if f.verdict in FLAGGED} == {}


# Keras callbacks: Horovod's in one list, the project's own added with `+=` from a module of its own.
EXTENDED_CALLBACKS = {
    "forecast/__init__.py": "",
    "forecast/callbacks.py": '''
        """The project's own callbacks: a CSV log of every epoch, and the checkpoint on rank 0."""
        import os

        import keras
        import horovod.tensorflow.keras as hvd


        def extra_callbacks(cfg):
            cbs = [keras.callbacks.CSVLogger(os.path.join(cfg["out"], f"log-{hvd.rank()}.csv"))]
            if hvd.rank() == 0:
                cbs.append(keras.callbacks.ModelCheckpoint(os.path.join(cfg["out"], "model.keras")))
            return cbs
        ''',
    "train.py": '''
        """Load forecasting on 4 workers: horovodrun -np 4 python train.py --epochs 20"""
        import argparse

        import keras
        import numpy as np
        import tensorflow as tf
        import horovod.tensorflow.keras as hvd

        from forecast.callbacks import extra_callbacks


        def main():
            p = argparse.ArgumentParser()
            p.add_argument("--epochs", type=int, default=20)
            p.add_argument("--lr", type=float, default=1e-3)
            p.add_argument("--out", default="runs")
            cfg = vars(p.parse_args())
            hvd.init()
            tf.config.threading.set_intra_op_parallelism_threads(1)
            x = np.random.rand(4096, 24).astype("float32")
            y = x.sum(1, keepdims=True)
            data = tf.data.Dataset.from_tensor_slices((x, y)).shard(hvd.size(), hvd.rank()).batch(64)
            model = keras.Sequential([keras.Input((24,)), keras.layers.Dense(32, activation="relu"),
                                      keras.layers.Dense(1)])
            opt = hvd.DistributedOptimizer(keras.optimizers.Adam(learning_rate=cfg["lr"] * hvd.size()))
            model.compile(optimizer=opt, loss="mse")
            callbacks = [hvd.callbacks.BroadcastGlobalVariablesCallback(0),
                         hvd.callbacks.MetricAverageCallback()]
            callbacks += extra_callbacks(cfg)
            model.fit(data, epochs=cfg["epochs"], callbacks=callbacks, verbose=1 if hvd.rank() == 0 else 0)


        if __name__ == "__main__":
            main()
        ''',
}


def test_callbacks_extended_with_augmented_assignment_still_reach_fit(tmp_path):
    """`callbacks += extra_callbacks(cfg)` keeps the list it extends: Horovod's two callbacks reach fit. (Before,
    the name at fit was followed to `+=`'s right-hand side alone: steps 6 and 8 "never passed to fit".)
    Given to fit is a list without them: both steps flagged."""
    for rel, source in EXTENDED_CALLBACKS.items():
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(textwrap.dedent(source).lstrip("\n"))
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'forecast'\n")
    findings, _, info = analyze(str(tmp_path / "train.py"))
    assert "forecast/callbacks.py" in info["files_read"] and info["crash"] is None, info
    assert {n: f.evidence for n, f in findings.items() if f.verdict in FLAGGED} == {}
    broken = EXTENDED_CALLBACKS["train.py"].replace("callbacks=callbacks,", "callbacks=extra_callbacks(cfg),")
    (tmp_path / "train.py").write_text(textwrap.dedent(broken).lstrip("\n"))
    flagged = {n: f.evidence for n, f in analyze(str(tmp_path / "train.py"))[0].items() if f.verdict in FLAGGED}
    assert sorted(flagged) == [6, 8] and all("never passed to fit" in e for e in flagged.values()), flagged
