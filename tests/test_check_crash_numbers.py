"""`hvdkit check`'s crash finding on a Python number handed to a Horovod collective that takes a tensor
(hvdkit/check/crash_numbers.py): horovod.torch's allreduce / allreduce_ / allgather / broadcast and
horovod.tensorflow's allreduce raise AttributeError on a float or an int. Each broken trainer beside
correct twins that must not be reported: the number wrapped in a tensor, a helper some call hands a
tensor, a project method named item(), horovod.tensorflow.keras's allreduce (which converts numbers)."""
import textwrap

from crash_scripts import Source, check, check_project, line_of

TRAINER = Source(textwrap.dedent("""
    import argparse

    import torch
    import torch.nn.functional as F
    import horovod.torch as hvd
    from torch.utils.data import DataLoader, TensorDataset
    from torch.utils.data.distributed import DistributedSampler


    def average(value, name):
        return hvd.allreduce(torch.tensor(value), name=name).item()


    def train_epoch(model, loader, optimizer, log_every):
        model.train()
        running, samples = 0.0, 0
        for step, (x, y) in enumerate(loader, start=1):
            optimizer.zero_grad()
            loss = F.cross_entropy(model(x), y)
            loss.backward()
            optimizer.step()
            running += loss.item() * len(y)
            samples += len(y)
            if step % log_every == 0:
                mean = average(running / samples, "train_loss")
                if hvd.rank() == 0:
                    print(f"step {step}: loss {mean:.4f}")


    def evaluate(model, loader):
        model.eval()
        total, hits, batches = 0.0, 0, 0
        with torch.no_grad():
            for x, y in loader:
                out = model(x)
                total += F.cross_entropy(out, y).item()
                hits += int((out.argmax(1) == y).sum())
                batches += 1
        return total / batches, hits / len(loader.dataset)


    def main():
        parser = argparse.ArgumentParser()
        parser.add_argument("--epochs", type=int, default=2)
        parser.add_argument("--lr", type=float, default=0.01)
        parser.add_argument("--log-every", type=int, default=10)
        args = parser.parse_args()
        hvd.init()
        torch.set_num_threads(1)
        data = TensorDataset(torch.randn(1024, 20), torch.randint(0, 3, (1024,)))
        sampler = DistributedSampler(data, num_replicas=hvd.size(), rank=hvd.rank())
        loader = DataLoader(data, batch_size=32, sampler=sampler)
        model = torch.nn.Linear(20, 3)
        optimizer = torch.optim.SGD(model.parameters(), lr=args.lr * hvd.size())
        optimizer = hvd.DistributedOptimizer(optimizer, named_parameters=model.named_parameters())
        hvd.broadcast_parameters(model.state_dict(), root_rank=0)
        hvd.broadcast_optimizer_state(optimizer, root_rank=0)
        for epoch in range(args.epochs):
            sampler.set_epoch(epoch)
            train_epoch(model, loader, optimizer, args.log_every)
            val_loss, val_acc = evaluate(model, loader)
            val_loss = average(val_loss, "val_loss")
            val_acc = average(val_acc, "val_acc")
            if hvd.rank() == 0:
                print(f"epoch {epoch} loss {val_loss:.4f} acc {val_acc:.4f}")
                torch.save(model.state_dict(), "model.pt")


    if __name__ == "__main__":
        main()
"""))
WRAPPED = "hvd.allreduce(torch.tensor(value), name=name)"


def test_the_correct_trainer_has_no_crash(tmp_path):
    assert check(tmp_path, TRAINER)[0] is None


def test_a_helper_that_allreduces_the_python_floats_it_is_handed_raises(tmp_path):
    broken = TRAINER.replace(WRAPPED, "hvd.allreduce(value, name=name)")
    crash, flagged = check(tmp_path, broken)
    assert crash["line"] == line_of(broken, "return hvd.allreduce(value")
    assert crash["error"] == "AttributeError: 'float' object has no attribute 'new'"
    assert flagged[8] == "wrong"  # the averaging's own call raises: no metric is ever averaged
    in_place = TRAINER.replace(WRAPPED, "hvd.allreduce_(value, name=name)")
    assert check(tmp_path, in_place)[0]["error"] == "AttributeError: 'float' object has no attribute 'type'"
    gathered = TRAINER.replace(WRAPPED, "hvd.allgather(value, name=name).mean()")
    assert check(tmp_path, gathered)[0]["error"] == "AttributeError: 'float' object has no attribute 'shape'"


def test_a_count_or_an_item_handed_straight_to_a_collective_raises(tmp_path):
    counted = TRAINER.replace('        val_acc = average(val_acc, "val_acc")\n',
                              '        val_acc = average(val_acc, "val_acc")\n'
                              '        batches = hvd.allreduce(len(loader), op=hvd.Sum)\n')
    crash, _ = check(tmp_path, counted)
    assert crash["line"] == line_of(counted, "batches = hvd.allreduce(len(loader)")
    assert crash["error"] == "AttributeError: 'int' object has no attribute 'new'"
    item = TRAINER.replace("            mean = average(running / samples, \"train_loss\")\n",
                           "            mean = hvd.broadcast(loss.item(), root_rank=0)\n")
    assert check(tmp_path, item)[0]["error"] == "AttributeError: 'float' (or 'int') object has no attribute 'new'"


def test_the_call_that_hands_a_helper_a_number_raises(tmp_path):
    """A helper that hands its parameter to a collective, called with a tensor at one site and with a number at
    another: the call with the number raises, and it is the one reported (the first the run reaches)."""
    tensor_once = TRAINER.replace(WRAPPED, "hvd.allreduce(value, name=name)").replace(
        '        val_acc = average(val_acc, "val_acc")\n',
        '        val_acc = average(torch.tensor(val_acc), "val_acc")\n')
    crash, _ = check(tmp_path, tensor_once)
    assert crash["line"] == line_of(tensor_once, "mean = average(running / samples")
    assert crash["error"] == "AttributeError: 'float' object has no attribute 'new'"
    # under a condition in the helper, the collective may not run on that call: no crash is certain
    guarded = tensor_once.replace("    return hvd.allreduce(value, name=name).item()\n",
                                  "    if torch.is_tensor(value):\n"
                                  "        return hvd.allreduce(value, name=name).item()\n"
                                  "    return value\n")
    assert check(tmp_path, guarded)[0] is None


def test_a_call_that_leaves_a_helpers_number_default_raises(tmp_path):
    """A helper whose parameter defaults to a Python number and hands it to a collective: the call that
    leaves the parameter out passes the default, and raises; when every call gives a tensor, nothing does."""
    defaulted = TRAINER.replace(WRAPPED, "hvd.allreduce(value, name=name)").replace(
        "def average(value, name):", "def average(name, value=0.0):").replace(
        'average(running / samples, "train_loss")', 'average("train_loss", torch.tensor(running / samples))').replace(
        'val_loss = average(val_loss, "val_loss")', 'val_loss = average("val_loss")').replace(
        'val_acc = average(val_acc, "val_acc")', 'val_acc = average("val_acc", torch.tensor(val_acc))')
    crash, _ = check(tmp_path, defaulted)
    assert crash["line"] == line_of(defaulted, 'val_loss = average("val_loss")')
    assert crash["error"] == "AttributeError: 'float' object has no attribute 'new'"
    given = defaulted.replace('val_loss = average("val_loss")',
                              'val_loss = average("val_loss", torch.tensor(val_loss))')
    assert check(tmp_path, given)[0] is None


def test_values_that_may_be_tensors_are_not_crashes(tmp_path):
    tensors = TRAINER.replace(WRAPPED, "hvd.allreduce(value, name=name)")
    for number in ("running / samples", "val_loss", "val_acc"):
        tensors = tensors.replace(f"average({number},", f"average(torch.tensor({number}),")
    assert check(tmp_path, tensors)[0] is None  # every call site hands the helper a tensor
    own_item = TRAINER.replace(WRAPPED, "hvd.allreduce(value, name=name)").replace(
        "def average(value, name):", "class Meter:\n    def item(self):\n        return torch.zeros(1)\n\n\n"
                                     "def average(value, name):").replace(
        "running += loss.item() * len(y)", "running += Meter().item()").replace(
        'val_loss = average(val_loss, "val_loss")', 'val_loss = average(torch.tensor(val_loss), "val_loss")').replace(
        'val_acc = average(val_acc, "val_acc")', 'val_acc = average(torch.tensor(val_acc), "val_acc")')
    assert check(tmp_path, own_item)[0] is None  # the project's own item() may give a tensor
    summed = TRAINER.replace("    running, samples = 0.0, 0\n", "    running, samples = torch.zeros(()), 0\n").replace(
        "running += loss.item() * len(y)", "running += loss.detach() * len(y)").replace(
        "mean = average(running / samples, \"train_loss\")", "mean = hvd.allreduce(running / samples).item()")
    assert check(tmp_path, summed)[0] is None  # a tensor divided by a number is a tensor


def test_an_accuracy_over_counts_of_tensor_sizes_is_a_python_number(tmp_path):
    # `total += y.size(0)`: a tensor's dimension is a Python int, so hits / total is a float
    sized = TRAINER.replace(WRAPPED, "hvd.allreduce(value, name=name)").replace(
        "    total, hits, batches = 0.0, 0, 0\n", "    total, hits, batches, seen = 0.0, 0, 0, 0\n").replace(
        "            batches += 1\n", "            batches += 1\n            seen += y.size(0)\n").replace(
        "    return total / batches, hits / len(loader.dataset)\n",
        "    return total / batches, average(hits / seen, \"acc\")\n").replace(
        '        val_acc = average(val_acc, "val_acc")\n', "").replace(
        "            mean = average(running / samples, \"train_loss\")\n",
        "            mean = hvd.allreduce(torch.tensor(running / samples)).item()\n").replace(
        '        val_loss = average(val_loss, "val_loss")\n', "")
    crash, _ = check(tmp_path, sized)
    assert crash is not None and crash["line"] == line_of(sized, "return hvd.allreduce(value"), crash
    assert crash["error"] == "AttributeError: 'float' object has no attribute 'new'"
    tensor = sized.replace("return hvd.allreduce(value, name=name)",
                           "return hvd.allreduce(torch.tensor(value), name=name)")
    assert check(tmp_path, tensor)[0] is None


KERAS_METRIC = textwrap.dedent("""
    import numpy as np
    import tensorflow as tf
    import horovod.tensorflow{keras} as hvd


    def mean_over_ranks(value):
        return float(hvd.allreduce(value))


    def main():
        hvd.init()
        model = tf.keras.Sequential([tf.keras.Input(shape=(8,)), tf.keras.layers.Dense(1)])
        opt = hvd.DistributedOptimizer(tf.keras.optimizers.SGD(0.01 * hvd.size()))
        model.compile(optimizer=opt, loss="mse")
        x, y = np.random.rand(256, 8), np.random.rand(256, 1)
        callbacks = [hvd.callbacks.BroadcastGlobalVariablesCallback(0)] if "{keras}" else []
        for epoch in range(3):
            history = model.fit(x, y, batch_size=32, epochs=1, callbacks=callbacks, verbose=0)
            loss = mean_over_ranks(float(history.history["loss"][-1]))
            if hvd.rank() == 0:
                print(epoch, loss)


    if __name__ == "__main__":
        main()
""")


def test_horovod_tensorflow_allreduce_of_a_float_raises_and_its_keras_module_converts(tmp_path):
    crash, _ = check(tmp_path, KERAS_METRIC.replace("{keras}", ""))
    assert crash["line"] == line_of(KERAS_METRIC, "return float(hvd.allreduce(value))")
    assert crash["error"] == "AttributeError: 'float' object has no attribute 'dtype'"
    assert check(tmp_path, KERAS_METRIC.replace("{keras}", ".keras"))[0] is None


UTILS = textwrap.dedent("""
    import horovod.torch as hvd


    def metric_average(value, name):
        return hvd.allreduce(value, name=name).item()
""")


def test_a_project_helper_handed_python_floats_by_the_script_raises_in_its_module(tmp_path):
    script = TRAINER.replace("import horovod.torch as hvd\n", "import horovod.torch as hvd\nfrom utils import "
                             "metric_average\n").replace("val_loss = average(", "val_loss = metric_average(")
    crash, _, _ = check_project(tmp_path / "proj", {"train.py": script, "utils.py": UTILS})
    assert crash["file"] == "utils.py" and crash["line"] == line_of(UTILS, "return hvd.allreduce(value")
    assert crash["error"] == "AttributeError: 'float' object has no attribute 'new'"
    wrapped = script.replace("val_loss = metric_average(val_loss,", "val_loss = metric_average(torch.tensor(val_loss),")
    assert check_project(tmp_path / "twin", {"train.py": wrapped, "utils.py": UTILS})[0] is None
