"""`hvdkit check`, static pass: library-shaped files (issue 39, class 2).

When nothing at a file's module level trains (its training function is launched by `horovod.run` from
another module's main, by Ray, by horovod.spark), each of its functions that does Horovod work and that no
other such function calls is an entry point: walked as run, from its parameters' defaults, and listed in
the report. Before, such a file got "no hvd.init() call", "the broadcast is in a function that nothing
calls" and "gradients are never averaged". Projects are written from scratch into tmp_path.
"""
from hvdkit.check import FLAGGED
from hvdkit.check.static import analyze
from test_check_project import write

TRAINER = '''
    """The training function; launch.py runs it on every rank with horovod.run."""
    import os

    import horovod.torch as hvd
    import torch
    import torch.nn.functional as F
    from torch.utils.data import DataLoader, TensorDataset
    from torch.utils.data.distributed import DistributedSampler


    def make_data(n=4096):
        return TensorDataset(torch.randn(n, 32), torch.randint(0, 4, (n,)))


    def evaluate(model, loader):
        model.eval()
        correct, count = 0, 0
        with torch.no_grad():
            for x, y in loader:
                correct += (model(x).argmax(1) == y).sum().item()
                count += len(y)
        return hvd.allreduce(torch.tensor(correct / count), name="accuracy").item()  # equal shards: the mean


    def train(lr=0.01, epochs=3, batch_size=64, out="runs"):
        hvd.init()
        torch.set_num_threads(max(1, os.cpu_count() // hvd.local_size()))
        data = make_data()
        sampler = DistributedSampler(data, num_replicas=hvd.size(), rank=hvd.rank())
        loader = DataLoader(data, batch_size=batch_size, sampler=sampler)
        model = torch.nn.Sequential(torch.nn.Linear(32, 64), torch.nn.ReLU(), torch.nn.Linear(64, 4))
        opt = torch.optim.SGD(model.parameters(), lr=lr * hvd.size(), momentum=0.9)
        opt = hvd.DistributedOptimizer(opt, named_parameters=model.named_parameters())
        hvd.broadcast_parameters(model.state_dict(), root_rank=0)
        hvd.broadcast_optimizer_state(opt, root_rank=0)
        for epoch in range(epochs):
            sampler.set_epoch(epoch)
            model.train()
            for x, y in loader:
                opt.zero_grad()
                F.cross_entropy(model(x), y).backward()
                opt.step()
            accuracy = evaluate(model, loader)
            if hvd.rank() == 0:
                print(f"epoch {epoch}: accuracy {accuracy:.3f}")
                torch.save(model.state_dict(), os.path.join(out, f"model-{epoch}.pt"))
        return accuracy
'''
LAUNCH = '''
    """Runs trainer.train on 4 local ranks: python launch.py"""
    import horovod

    from trainer import train

    if __name__ == "__main__":
        results = horovod.run(train, kwargs={"epochs": 5}, np=4)
        print(results)
'''


def _report(path):
    findings, _, info = analyze(str(path))
    return {n: f.evidence for n, f in findings.items() if f.verdict in FLAGGED}, info


def test_a_function_launched_from_another_module_is_an_entry_point(tmp_path):
    root = write(tmp_path, {"trainer.py": TRAINER, "launch.py": LAUNCH})
    got, info = _report(root / "trainer.py")
    assert got == {}
    assert [(e["function"], e["file"], e["line"]) for e in info["entry_points"]] == [("train", None, 25)]
    assert "init()" in info["entry_points"][0]["why"]
    got, info = _report(root / "launch.py")  # the launcher itself: horovod.run hands train on, it runs there
    assert got == {} and info["entry_points"] == [] and "trainer.py" in info["files_read"]


def test_an_entry_point_without_a_broadcast_is_missing_it(tmp_path):
    broken = TRAINER.replace("        hvd.broadcast_parameters(model.state_dict(), root_rank=0)\n", "").replace(
        "        hvd.broadcast_optimizer_state(opt, root_rank=0)\n", "")
    got, _ = _report(write(tmp_path, {"trainer.py": broken}) / "trainer.py")
    assert list(got) == [6] and "no broadcast" in got[6]


WORKER = '''
    """A Ray actor: the driver (driver.py, not shown) makes one per GPU and calls setup(), then train_epoch()."""
    import horovod.tensorflow.keras as hvd
    import tensorflow as tf


    class TrainingWorker:
        def __init__(self, config):
            self.config = config

        def setup(self):
            hvd.init()
            gpus = tf.config.list_physical_devices("GPU")
            if gpus:
                tf.config.set_visible_devices(gpus[hvd.local_rank()], "GPU")
            (x, y), _ = tf.keras.datasets.mnist.load_data()
            self.data = tf.data.Dataset.from_tensor_slices((x[..., None] / 255.0, y)).shard(
                hvd.size(), hvd.rank()).shuffle(10000).batch(self.config.get("batch_size", 128))
            self.model = tf.keras.Sequential([tf.keras.Input((28, 28, 1)), tf.keras.layers.Flatten(),
                                              tf.keras.layers.Dense(10)])
            opt = tf.keras.optimizers.Adam(self.config.get("lr", 1e-3) * hvd.size())
            self.model.compile(optimizer=hvd.DistributedOptimizer(opt),
                               loss=tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True),
                               metrics=["accuracy"])
            self.callbacks = [hvd.callbacks.BroadcastGlobalVariablesCallback(0),
                              hvd.callbacks.MetricAverageCallback()]
            if hvd.rank() == 0:
                self.callbacks.append(tf.keras.callbacks.ModelCheckpoint("ckpt-{epoch}.keras"))

        def train_epoch(self, epoch):
            history = self.model.fit(self.data, initial_epoch=epoch, epochs=epoch + 1, callbacks=self.callbacks,
                                     verbose=0)
            return history.history
'''


def test_the_methods_of_a_ray_actor_are_entry_points(tmp_path):
    got, info = _report(write(tmp_path, {"worker.py": WORKER}) / "worker.py")
    assert got == {}
    assert [e["function"] for e in info["entry_points"]] == ["TrainingWorker.setup", "TrainingWorker.train_epoch"]


def test_a_ray_actor_that_never_wraps_the_optimizer_is_flagged(tmp_path):
    broken = WORKER.replace("optimizer=hvd.DistributedOptimizer(opt)", "optimizer=opt")
    got, _ = _report(write(tmp_path, {"worker.py": broken}) / "worker.py")
    assert list(got) == [5]
