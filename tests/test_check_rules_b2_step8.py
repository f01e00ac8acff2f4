"""`hvdkit check`, static pass, step 8 inside projects (issue 39, classes 1 and 4): a sum over ranks is wrong
only when a report prints it as it is, followed by data flow through the project's helpers, methods and
properties (a meter that sums (total, count) and divides, a confusion matrix summed and turned into mIoU,
are averages); rank 0 alone evaluating the whole data reports the job's metric. Each pair is a small
project written from scratch into tmp_path (a call into code the pass cannot read, handed the model, may
evaluate and average: cannot tell); the broken one is flagged on step 8, its twin is not. No
framework is imported."""
import textwrap

from hvdkit.check import MISSING, OK, UNKNOWN, WRONG
from hvdkit.check.static import analyze


def project(tmp_path, files, script="train.py"):
    """Write {relative path: source} under tmp_path (a pyproject.toml at its root); the findings of `script`."""
    tmp_path.mkdir(parents=True, exist_ok=True)
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'demo'\n")
    for rel, src in files.items():
        path = tmp_path / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(src))
    findings, _, _ = analyze(str(tmp_path / script), root=str(tmp_path))
    return findings


TRAIN = """
    import torch
    import torch.nn.functional as F
    import horovod.torch as hvd
    from torch.utils.data import DataLoader, TensorDataset
    from torch.utils.data.distributed import DistributedSampler

    from seglab.metrics import Accuracy


    def main():
        hvd.init()
        torch.set_num_threads(1)
        x, y = torch.randn(900, 8), torch.randint(0, 3, (900,))
        train_set, dev_set = TensorDataset(x[:800], y[:800]), TensorDataset(x[800:], y[800:])
        train_sampler = DistributedSampler(train_set, num_replicas=hvd.size(), rank=hvd.rank())
        dev_sampler = DistributedSampler(dev_set, num_replicas=hvd.size(), rank=hvd.rank(), shuffle=False)
        train_loader = DataLoader(train_set, batch_size=32, sampler=train_sampler)
        dev_loader = DataLoader(dev_set, batch_size=64, sampler=dev_sampler)
        net = torch.nn.Linear(8, 3)
        opt = torch.optim.SGD(net.parameters(), lr=0.1 * hvd.size())
        opt = hvd.DistributedOptimizer(opt, named_parameters=net.named_parameters())
        hvd.broadcast_parameters(net.state_dict(), root_rank=0)
        for epoch in range(5):
            train_sampler.set_epoch(epoch)
            for xb, yb in train_loader:
                opt.zero_grad()
                F.cross_entropy(net(xb), yb).backward()
                opt.step()
            meter = Accuracy()
            with torch.no_grad():
                for xb, yb in dev_loader:
                    meter.update(net(xb), yb)
            meter.sync()
            if hvd.rank() == 0:
                print(f"epoch {epoch} dev accuracy {meter.value():.3f}")
                torch.save(net.state_dict(), "net.pt")


    if __name__ == "__main__":
        main()
"""
METRICS = """
    import torch
    import horovod.torch as hvd


    def reduce_sum(t, name):
        return hvd.allreduce(t, op=hvd.Sum, name=name)


    class Accuracy:
        def __init__(self):
            self.hits = torch.zeros(2, dtype=torch.float64)

        def update(self, logits, target):
            self.hits[0] += (logits.argmax(1) == target).sum().item()
            self.hits[1] += len(target)

        def sync(self):
            self.hits = reduce_sum(self.hits, "dev_hits")
            return self

        def value(self):
            return {value}
"""


def test_a_sum_over_ranks_is_wrong_only_where_a_report_prints_it_undivided(tmp_path):
    # The (hits, seen) pair summed in a helper of the project and divided in the meter: an average. Before the
    # fix, a sum whose result was not assigned to a name in the script (`return hvd.allreduce(...)` in a helper)
    # was "summed and reported as the value" whatever the code did with it.
    ok = project(tmp_path / "ok", {"train.py": TRAIN, "seglab/__init__.py": "", "seglab/metrics.py": METRICS.format(
        value="(self.hits[0] / self.hits[1].clamp(min=1)).item()")})
    assert ok[8].verdict == OK, ok[8].evidence
    # The summed hits printed as the accuracy: the report's line is the evidence.
    bad = project(tmp_path / "bad", {"train.py": TRAIN, "seglab/__init__.py": "", "seglab/metrics.py": METRICS.format(
        value="self.hits[0].item()")})
    assert bad[8].verdict == WRONG and "reports the sum" in bad[8].evidence, bad[8].evidence


PROPERTY_METER = """
    import torch
    import horovod.torch as hvd


    class Accuracy:
        def __init__(self):
            self.correct, self.seen = 0.0, 0.0

        def update(self, logits, target):
            self.correct += (logits.argmax(1) == target).sum().item()
            self.seen += len(target)

        def sync(self):
            t = hvd.allreduce(torch.tensor([self.correct, self.seen]), op=hvd.Sum, name="acc")
            self.correct, self.seen = t[0].item(), t[1].item()

        @property
        def rate(self):
            return {rate}

        def value(self):
            return self.rate
"""


def test_a_property_that_divides_the_summed_pair_is_an_average(tmp_path):
    files = {"train.py": TRAIN, "seglab/__init__.py": ""}
    ok = project(tmp_path / "ok", dict(files, **{"seglab/metrics.py": PROPERTY_METER.format(
        rate="self.correct / max(self.seen, 1)")}))
    assert ok[8].verdict == OK, ok[8].evidence
    bad = project(tmp_path / "bad", dict(files, **{"seglab/metrics.py": PROPERTY_METER.format(rate="self.correct")}))
    assert bad[8].verdict == WRONG, bad[8].evidence


RANK0_EVAL = """
    import torch
    import torch.nn.functional as F
    import horovod.torch as hvd
    from torch.utils.data import DataLoader, TensorDataset
    from torch.utils.data.distributed import DistributedSampler


    def evaluate(net, loader):
        net.eval()
        hits = seen = 0
        with torch.no_grad():
            for xb, yb in loader:
                hits += (net(xb).argmax(1) == yb).sum().item()
                seen += len(yb)
        return hits / seen


    def main():
        hvd.init()
        torch.set_num_threads(1)
        x, y = torch.randn(900, 8), torch.randint(0, 3, (900,))
        train_set, holdout = TensorDataset(x[:800], y[:800]), TensorDataset(x[800:], y[800:])
        sampler = DistributedSampler(train_set, num_replicas=hvd.size(), rank=hvd.rank())
        train_loader = DataLoader(train_set, batch_size=32, sampler=sampler)
        holdout_loader = {holdout_loader}
        net = torch.nn.Linear(8, 3)
        opt = torch.optim.SGD(net.parameters(), lr=0.1 * hvd.size())
        opt = hvd.DistributedOptimizer(opt, named_parameters=net.named_parameters())
        hvd.broadcast_parameters(net.state_dict(), root_rank=0)
        for epoch in range(5):
            sampler.set_epoch(epoch)
            net.train()
            total = 0.0
            for xb, yb in train_loader:
                opt.zero_grad()
                loss = F.cross_entropy(net(xb), yb)
                loss.backward()
                opt.step()
                total += loss.item()
            {train_log}
            if hvd.rank() == 0:
                print(f"epoch {{epoch}} holdout accuracy {{evaluate(net, holdout_loader):.3f}}")
                torch.save(net.state_dict(), "net.pt")


    if __name__ == "__main__":
        main()
"""


WHOLE = "DataLoader(holdout, batch_size=64)"
SHARDED = ("DataLoader(holdout, batch_size=64, sampler=DistributedSampler(holdout, num_replicas=hvd.size(), "
           "rank=hvd.rank()))")
# each rank logs its own training loss under its own tag, in the branches of a test on the rank
PER_RANK_LOGS = """if hvd.rank() == 0:
                print("train loss (rank 0)", total / len(train_loader))
            else:
                print("train loss (other ranks)", total / len(train_loader))"""
# rank 0 prints its own shard's training loss as the job's
RANK0_LOG = """if hvd.rank() == 0:
                print("train loss", total / len(train_loader))"""


def test_rank0_alone_evaluating_the_whole_data_reports_the_jobs_metric(tmp_path):
    # Before the fix, an evaluation that only rank 0 runs was not counted as the job's even on the whole data,
    # and per-rank logs in the two branches of a rank test were read as rank 0's metric.
    for name, loader, log in (("whole", WHOLE, ""), ("per_rank_logs", WHOLE, PER_RANK_LOGS)):
        ok = project(tmp_path / name, {"train.py": RANK0_EVAL.format(holdout_loader=loader, train_log=log)})
        assert ok[8].verdict == OK, (name, ok[8].evidence)
    # evaluated on rank 0's shard; or beside the whole evaluation, rank 0's own shard's loss reported as the job's
    for name, loader, log in (("sharded", SHARDED, ""), ("rank0_log", WHOLE, RANK0_LOG)):
        bad = project(tmp_path / name, {"train.py": RANK0_EVAL.format(holdout_loader=loader, train_log=log)})
        assert bad[8].verdict == MISSING, (name, bad[8].evidence)


UNREAD_EVAL = """
    import torch
    import torch.nn.functional as F
    import horovod.torch as hvd
    from torch.utils.data import DataLoader, TensorDataset
    from torch.utils.data.distributed import DistributedSampler

    from scoring import dice  # a module of the project that is not there: its code cannot be read


    def main():
        hvd.init()
        torch.set_num_threads(1)
        x, y = torch.randn(900, 8), torch.randint(0, 3, (900,))
        train_set, dev_set = TensorDataset(x[:800], y[:800]), TensorDataset(x[800:], y[800:])
        sampler = DistributedSampler(train_set, num_replicas=hvd.size(), rank=hvd.rank())
        train_loader = DataLoader(train_set, batch_size=32, sampler=sampler)
        dev_loader = DataLoader(dev_set, batch_size=64)
        net = torch.nn.Linear(8, 3)
        opt = torch.optim.SGD(net.parameters(), lr=0.1 * hvd.size())
        opt = hvd.DistributedOptimizer(opt, named_parameters=net.named_parameters())
        hvd.broadcast_parameters(net.state_dict(), root_rank=0)
        step = 0
        for epoch in range(5):
            sampler.set_epoch(epoch)
            for xb, yb in train_loader:
                opt.zero_grad()
                out = net(xb)
                F.cross_entropy(out, yb).backward()
                opt.step()
                step += 1
                if step % 50 == 0 and hvd.rank() == 0:
                    score = {score}
                    print(f"step {{step}} dice {{score:.3f}}")
                    torch.save(net.state_dict(), "net.pt")


    if __name__ == "__main__":
        main()
"""


def test_an_unread_call_handed_the_model_may_evaluate_and_average(tmp_path):
    # Every 50 steps rank 0 hands the model and the whole dev loader to code the pass cannot read: it may
    # evaluate the whole data (the job's metric) or average; cannot tell. Before the fix, any unread call in the
    # training loop was taken for a per-batch loss function and the report for rank 0's own metric: "missing".
    unread = project(tmp_path / "model", {"train.py": UNREAD_EVAL.format(score="dice(net, dev_loader)")})
    assert unread[8].verdict == UNKNOWN and "dice(net, dev_loader)" in unread[8].evidence, unread[8].evidence
    # handed only this rank's batch outputs, the same unread call computes rank 0's own batch metric
    own = project(tmp_path / "outputs", {"train.py": UNREAD_EVAL.format(score="dice(out, yb)")})
    assert own[8].verdict == MISSING, own[8].evidence


SAMPLED = """
    import numpy as np
    import torch
    import horovod.torch as hvd


    def worker_init_fn(worker_id):
        seed = torch.utils.data.get_worker_info().seed % 2 ** 32
        print("worker", worker_id, "of rank", hvd.rank())
        np.random.seed({seed})


    class RandomWalks(torch.utils.data.IterableDataset):
        def __init__(self, n):
            self.n = n

        def __iter__(self):
            for _ in range(self.n):
                x = torch.from_numpy(np.random.randn(8)).float()
                yield x, int(x.sum() > 0)
"""
SAMPLED_TRAIN = """
    import torch
    import torch.nn.functional as F
    import horovod.torch as hvd

    from walks.data import RandomWalks, worker_init_fn


    def main():
        hvd.init()
        torch.set_num_threads(1)
        loader = torch.utils.data.DataLoader(RandomWalks(4096), batch_size=32, num_workers=2,
                                             worker_init_fn=worker_init_fn)
        net = torch.nn.Linear(8, 2)
        opt = torch.optim.SGD(net.parameters(), lr=0.1 * hvd.size())
        opt = hvd.DistributedOptimizer(opt, named_parameters=net.named_parameters())
        hvd.broadcast_parameters(net.state_dict(), root_rank=0)
        for step, (xb, yb) in enumerate(loader):
            opt.zero_grad()
            loss = F.cross_entropy(net(xb), yb)
            loss.backward()
            opt.step()
            if step % 20 == 0 and hvd.rank() == 0:
                print(f"step {step} loss {loss.item():.4f}")
                torch.save(net.state_dict(), "net.pt")


    if __name__ == "__main__":
        main()
"""


def test_a_loader_seeded_by_the_rank_gives_each_rank_its_own_samples(tmp_path):
    # The worker_init_fn handed to the loader seeds the sampling with the rank: each rank trains on its own random
    # samples, and rank 0's loss is its own. Before the fix, the loader was read as the same data on every rank.
    files = {"train.py": SAMPLED_TRAIN, "walks/__init__.py": ""}
    bad = project(tmp_path / "rank", dict(files, **{"walks/data.py": SAMPLED.format(seed="seed + hvd.rank()")}))
    assert bad[8].verdict == MISSING, bad[8].evidence
    # seeded alike on every rank (the rank only printed): every rank draws the same samples with the same weights
    ok = project(tmp_path / "alike", dict(files, **{"walks/data.py": SAMPLED.format(seed="seed")}))
    assert ok[8].verdict == OK, ok[8].evidence


OPTIONAL_SHARD = """
    import argparse

    import torch
    import torch.nn.functional as F
    import horovod.torch as hvd
    from torch.utils.data import DataLoader, RandomSampler, TensorDataset
    from torch.utils.data.distributed import DistributedSampler


    def main():
        parser = argparse.ArgumentParser()
        parser.add_argument("--local_rank", type=int, default={default})
        parser.add_argument("--accumulation_steps", type=int, default=1)
        args = parser.parse_args()
        hvd.init()
        torch.manual_seed(0)
        x, y = torch.randn(800, 8), torch.randint(0, 3, (800,))
        data = TensorDataset(x, y)
        sampler = RandomSampler(data) if args.local_rank == -1 else DistributedSampler(data, hvd.size(), hvd.rank())
        loader = DataLoader(data, batch_size=32, sampler=sampler)
        net = torch.nn.Linear(8, 3)
        opt = torch.optim.SGD(net.parameters(), lr=0.1 * hvd.size())
        opt = hvd.DistributedOptimizer(opt, named_parameters=net.named_parameters())
        hvd.broadcast_parameters(net.state_dict(), root_rank=0)
        print("gradient accumulation steps:", args.accumulation_steps)
        for epoch in range(3):
            total = 0.0
            for xb, yb in loader:
                opt.zero_grad()
                loss = F.cross_entropy(net(xb), yb)
                loss.backward()
                opt.step()
                total += loss.item()
            {log}
        if hvd.rank() == 0:
            torch.save(net.state_dict(), "net.pt")


    if __name__ == "__main__":
        main()
"""
EPOCH_LOG = 'print(f"epoch {epoch} loss {total / len(loader):.4f}")'


def test_the_data_a_rank_reads_by_the_options_defaults(tmp_path):
    # By default (--local_rank -1) every rank reads the whole data in the same seeded order: the training loss
    # is the same on every rank. Before the fix, the DistributedSampler of the branch not taken made each rank's
    # loss its own ("missing").
    whole = project(tmp_path / "whole", {"train.py": OPTIONAL_SHARD.format(default=-1, log=EPOCH_LOG)})
    assert whole[8].verdict == OK, whole[8].evidence
    shard = project(tmp_path / "shard", {"train.py": OPTIONAL_SHARD.format(default=0, log=EPOCH_LOG)})
    assert shard[8].verdict == MISSING, shard[8].evidence


def test_a_metric_is_named_by_words_not_by_letters_inside_them(tmp_path):
    # Each rank trains on its shard and prints no metric: "accumulation" names no accuracy. Before the fix, `acc`
    # inside it made the line a report of each rank's own metric ("missing").
    silent = project(tmp_path / "silent", {"train.py": OPTIONAL_SHARD.format(default=0, log="pass")})
    assert silent[8].verdict == UNKNOWN, silent[8].evidence


KERAS_TRAINER = """
    import tensorflow as tf
    from tensorflow import keras
    import horovod.tensorflow.keras as hvd


    class Trainer:
        def __init__(self, lr):
            hvd.init()
            self.lr = lr
            self.is_root = hvd.rank() == 0
            x = tf.random.normal((1024, 8))
            y = tf.cast(tf.reduce_sum(x, axis=1) > 0, tf.int32)
            self.data = tf.data.Dataset.from_tensor_slices((x, y)).shard(hvd.size(), hvd.rank()).batch(32)

        def callbacks(self):
            cbs = [hvd.callbacks.BroadcastGlobalVariablesCallback(0), hvd.callbacks.MetricAverageCallback()]
            if self.is_root:
                cbs.append(keras.callbacks.ModelCheckpoint("ckpt.weights.h5", save_weights_only=True))
            return cbs

        def loggers(self):
            return [keras.callbacks.CSVLogger("log.csv")] if self.is_root else []

        def run(self):
            model = keras.Sequential([keras.Input((8,)), keras.layers.Dense(2)])
            opt = hvd.DistributedOptimizer(keras.optimizers.SGD(self.lr * hvd.size()))
            model.compile(optimizer=opt, loss="sparse_categorical_crossentropy", metrics=["accuracy"])
            model.fit(self.data, epochs=3, callbacks=self.{given}(), verbose=2 if self.is_root else 0)


    if __name__ == "__main__":
        Trainer(0.01).run()
"""


def test_callbacks_returned_by_a_method_of_self_reach_fit(tmp_path):
    # fit(callbacks=self.callbacks()): the list the method returns holds the broadcast and the metric average.
    # Before the fix, a call through `self` was not followed: both "never passed to fit".
    given = project(tmp_path / "given", {"train.py": KERAS_TRAINER.format(given="callbacks")})
    assert given[6].verdict == OK and given[8].verdict == OK, (given[6].evidence, given[8].evidence)
    # fit given another method's list: the method that makes the broadcast and the average is never called
    other = project(tmp_path / "other", {"train.py": KERAS_TRAINER.format(given="loggers")})
    assert other[6].verdict in (MISSING, WRONG) and other[8].verdict in (MISSING, WRONG), (
        other[6].evidence, other[8].evidence)


HANDED_TRAIN = """
    import torch
    import torch.nn.functional as F
    from torch.utils.data import DataLoader, TensorDataset
    from torch.utils.data.distributed import DistributedSampler


    def train_func(config):
        import horovod.torch as hvd
        from tabular.dist import export, mean_of

        hvd.init()
        torch.set_num_threads(1)
        x, y = torch.randn(900, 8), torch.randn(900)
        train_set, dev_set = TensorDataset(x[:800], y[:800]), TensorDataset(x[800:], y[800:])
        sampler = DistributedSampler(train_set, num_replicas=hvd.size(), rank=hvd.rank())
        dev_sampler = DistributedSampler(dev_set, num_replicas=hvd.size(), rank=hvd.rank(), shuffle=False)
        net = torch.nn.Linear(8, 1)
        opt = torch.optim.Adam(net.parameters(), lr=config["lr"] * hvd.size())
        opt = hvd.DistributedOptimizer(opt, named_parameters=net.named_parameters())
        hvd.broadcast_parameters(net.state_dict(), root_rank=0)
        for epoch in range(config["epochs"]):
            sampler.set_epoch(epoch)
            for xb, yb in DataLoader(train_set, batch_size=64, sampler=sampler):
                opt.zero_grad()
                F.mse_loss(net(xb).squeeze(-1), yb).backward()
                opt.step()
            sq, n = 0.0, 0
            with torch.no_grad():
                for xb, yb in DataLoader(dev_set, batch_size=64, sampler=dev_sampler):
                    sq += ((net(xb).squeeze(-1) - yb) ** 2).sum().item()
                    n += len(yb)
            rmse = mean_of(hvd, sq / max(n, 1)) ** 0.5
            if hvd.rank() == 0:
                print(f"epoch {epoch} dev RMSE {rmse:.3f}")
        export(hvd, net, config["out"])


    if __name__ == "__main__":
        from horovod.ray import RayExecutor
        executor = RayExecutor(RayExecutor.create_settings(timeout_s=60), num_workers=2)
        executor.start()
        executor.run(train_func, kwargs={"config": dict(lr=1e-3, epochs=3, out="mlp.pt")})
"""
HANDED_DIST = """
    import torch


    def mean_of(hvd, value):
        return {mean}


    def export(hvd, model, path):
        {guard}
        torch.save({{k: v.cpu() for k, v in model.state_dict().items()}}, path)
"""
AVERAGE = 'hvd.allreduce(torch.tensor(float(value)), op=hvd.Average, name="dev").item()'
GUARD = "if hvd.rank() != 0:\n            return"


def _handed(tmp_path, name, mean, guard):
    return project(tmp_path / name, {"train.py": HANDED_TRAIN, "tabular/__init__.py": "",
                                     "tabular/dist.py": HANDED_DIST.format(mean=mean, guard=guard)})


def test_horovod_handed_to_a_helper_is_horovod(tmp_path):
    # `mean_of(hvd, x)` and `export(hvd, model, path)` in a module that does not import Horovod: the parameter is
    # the module every call hands in. Before the fix it was a name like any other: the allreduce was not an
    # average ("missing"), and the guard on hvd.rank() not a test on the rank.
    ok = _handed(tmp_path, "ok", AVERAGE, GUARD)
    assert ok[8].verdict == OK and ok[7].verdict == OK, (ok[7].evidence, ok[8].evidence)
    bad = _handed(tmp_path, "bad", "float(value)", "")
    assert bad[8].verdict == MISSING, bad[8].evidence
    assert bad[7].verdict == WRONG, bad[7].evidence


def test_a_comprehension_over_a_state_dict_is_the_models_state(tmp_path):
    # torch.save({k: v.cpu() for k, v in model.state_dict().items()}, path): the model's state, copied. Before the
    # fix the comprehension was not followed into what it iterates: "no checkpoint is written".
    unguarded = _handed(tmp_path, "unguarded", AVERAGE, "")
    assert unguarded[7].verdict == WRONG and "every rank writes" in unguarded[7].evidence, unguarded[7].evidence


RUNTIME = """
    from dataclasses import dataclass

    import torch
    import horovod.torch as hvd


    @dataclass
    class Runtime:
        rank: int
        local_rank: int
        world_size: int

        @property
        def is_root(self):
            return {root}


    def start():
        hvd.init()
        torch.set_num_threads(1)
        return Runtime(hvd.rank(), hvd.local_rank(), hvd.size())
"""
RUNTIME_TRAINER = """
    import torch
    import torch.nn.functional as F
    import horovod.torch as hvd
    from torch.utils.data import DataLoader, TensorDataset
    from torch.utils.data.distributed import DistributedSampler

    from engine.runtime import start


    class Trainer:
        def __init__(self, epochs):
            self.rt = start()
            self.epochs = epochs
            x, y = torch.randn(800, 8), torch.randint(0, 3, (800,))
            self.data = TensorDataset(x, y)
            self.sampler = DistributedSampler(self.data, num_replicas=hvd.size(), rank=hvd.rank())
            self.net = torch.nn.Linear(8, 3)
            opt = torch.optim.SGD(self.net.parameters(), lr=0.1 * hvd.size())
            self.opt = hvd.DistributedOptimizer(opt, named_parameters=self.net.named_parameters())
            hvd.broadcast_parameters(self.net.state_dict(), root_rank=0)

        def save(self, epoch):
            if not self.rt.is_root:
                return
            torch.save({"epoch": epoch, "model": self.net.state_dict()}, "last.pt")

        def fit(self):
            for epoch in range(self.epochs):
                self.sampler.set_epoch(epoch)
                for xb, yb in DataLoader(self.data, batch_size=32, sampler=self.sampler):
                    self.opt.zero_grad()
                    F.cross_entropy(self.net(xb), yb).backward()
                    self.opt.step()
                self.save(epoch)


    if __name__ == "__main__":
        Trainer(3).fit()
"""


def test_a_runtime_dataclass_made_with_the_rank_tells_ranks_apart(tmp_path):
    # `Runtime(hvd.rank(), ...)` by position into a dataclass whose property `is_root` compares the rank with 0,
    # read in a method of `Trainer(3).fit()` (an object never named). Before the fix neither the positional field
    # nor the constructor's walk of the unnamed object was followed: "every rank writes the checkpoint".
    files = {"train.py": RUNTIME_TRAINER, "engine/__init__.py": ""}
    ok = project(tmp_path / "rank", dict(files, **{"engine/runtime.py": RUNTIME.format(root="self.rank == 0")}))
    assert ok[7].verdict == OK, ok[7].evidence
    local = project(tmp_path / "local", dict(files, **{"engine/runtime.py": RUNTIME.format(
        root="self.local_rank == 0")}))
    assert local[7].verdict == WRONG and "local rank 0" in local[7].evidence, local[7].evidence


KERAS_UNREAD_CALLBACKS = """
    import tensorflow as tf
    from tensorflow import keras
    import horovod.tensorflow.keras as hvd

    from kit.callbacks import make_callbacks  # a module of the project that is not there


    def main():
        hvd.init()
        x = tf.random.normal((1024, 8))
        y = tf.cast(tf.reduce_sum(x, axis=1) > 0, tf.int32)
        data = tf.data.Dataset.from_tensor_slices((x, y)).shard(hvd.size(), hvd.rank()).batch(32)
        model = keras.Sequential([keras.Input((8,)), keras.layers.Dense(2)])
        opt = hvd.DistributedOptimizer(keras.optimizers.SGD(0.01 * hvd.size()))
        model.compile(optimizer=opt, loss="sparse_categorical_crossentropy", metrics=["accuracy"])
        callbacks = [hvd.callbacks.BroadcastGlobalVariablesCallback(0)]
        callbacks += {extra}
        model.fit(data, epochs=3, callbacks=callbacks, verbose=2 if hvd.rank() == 0 else 0)


    if __name__ == "__main__":
        main()
"""


def test_callbacks_made_by_unread_code_may_checkpoint_and_average(tmp_path):
    # fit's callbacks include what code the pass cannot read makes: a checkpoint or the metric average may be
    # there, cannot tell. Before the fix: "no checkpoint is written", "fit's metrics are each rank's own".
    unread = project(tmp_path / "unread", {"train.py": KERAS_UNREAD_CALLBACKS.format(extra="make_callbacks()")})
    assert unread[7].verdict == UNKNOWN and "make_callbacks" in unread[7].evidence, unread[7].evidence
    assert unread[8].verdict == UNKNOWN and "make_callbacks" in unread[8].evidence, unread[8].evidence
    # the same unread module called for something else, fit's callbacks all read: neither is there
    read = project(tmp_path / "read", {"train.py": KERAS_UNREAD_CALLBACKS.format(
        extra="[keras.callbacks.EarlyStopping(patience=2)]\n        make_callbacks()")})
    assert read[7].verdict == MISSING and read[8].verdict == MISSING, (read[7].evidence, read[8].evidence)
