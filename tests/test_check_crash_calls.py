"""`hvdkit check`'s crash finding on calls and attributes that raise by their definitions (issue 39, item 5):
attributes and imports Horovod 0.28.1's modules do not have, calls its signatures reject, and calls of the
script's own functions, classes and methods with arguments they do not take. Each broken script beside
correct twins (the right module, the required argument given, signatures a call cannot be checked against)
that must not be reported. The facts about Horovod come from hvdkit/check/horovod_api.json, generated from
the installed Horovod's source; a test checks that it is current."""
import importlib.util
import textwrap

import pytest

from crash_scripts import Source, check, line_of

TF_LOOP = Source(textwrap.dedent("""
    import argparse

    import tensorflow as tf
    import horovod.tensorflow as hvd


    class SegmentationTrainer:
        def __init__(self, model, lr, compression):
            self.model = model
            self.compression = compression
            self.opt = tf.keras.optimizers.SGD(lr * hvd.size())
            self.loss = tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True)

        @tf.function
        def train_step(self, images, masks, first_batch):
            with tf.GradientTape() as tape:
                loss = self.loss(masks, self.model(images, training=True))
            tape = hvd.DistributedGradientTape(tape, device_dense="/cpu:0", compression=self.compression)
            grads = tape.gradient(loss, self.model.trainable_variables)
            self.opt.apply_gradients(zip(grads, self.model.trainable_variables))
            if first_batch:
                hvd.broadcast_variables(self.model.variables, root_rank=0)
                hvd.broadcast_variables(self.opt.variables, root_rank=0)
            return loss

        def run(self, data, epochs):
            for epoch in range(epochs):
                total = 0.0
                for batch, (images, masks) in enumerate(data):
                    loss = self.train_step(images, masks, batch == 0 and epoch == 0)
                    total += float(loss)
                avg = hvd.allreduce(tf.constant(total / (batch + 1)))
                if hvd.rank() == 0:
                    print(epoch, float(avg))
                    self.model.save_weights(f"seg-{epoch}.weights.h5")


    def make_data(batch_size):
        images = tf.random.uniform((256, 32, 32, 3))
        masks = tf.random.uniform((256, 32, 32), maxval=2, dtype=tf.int32)
        return tf.data.Dataset.from_tensor_slices((images, masks)).shard(hvd.size(), hvd.rank()).batch(batch_size)


    def main():
        parser = argparse.ArgumentParser()
        parser.add_argument("--epochs", type=int, default=2)
        parser.add_argument("--lr", type=float, default=0.01)
        parser.add_argument("--fp16-allreduce", action="store_true")
        args = parser.parse_args()
        hvd.init()
        gpus = tf.config.list_physical_devices("GPU")
        if gpus:
            tf.config.set_visible_devices(gpus[hvd.local_rank()], "GPU")
        model = tf.keras.Sequential([tf.keras.layers.Conv2D(2, 3, padding="same")])
        compression = hvd.Compression.fp16 if args.fp16_allreduce else hvd.Compression.none
        SegmentationTrainer(model, args.lr, compression).run(make_data(32), args.epochs)


    if __name__ == "__main__":
        main()
"""))


def test_the_correct_loop_has_no_crash(tmp_path):
    assert check(tmp_path, TF_LOOP) == (None, {})


def test_a_keyword_horovods_signature_does_not_take_is_a_type_error(tmp_path):
    broken = TF_LOOP.replace('device_dense="/cpu:0"', 'odevice_dense="/cpu:0"')
    crash, _ = check(tmp_path, broken)
    assert crash["line"] == line_of(broken, "odevice_dense")
    assert crash["error"] == "TypeError: DistributedGradientTape() got an unexpected keyword argument 'odevice_dense'"
    assert crash["why"].startswith("Horovod 0.28.1's horovod.tensorflow.DistributedGradientTape(gradtape, "
                                   "device_dense=..., device_sparse=...")


def test_an_attribute_horovods_module_does_not_have_is_an_attribute_error(tmp_path):
    broken = TF_LOOP.replace("hvd.Compression.fp16 if args.fp16_allreduce else hvd.Compression.none",
                             "hvd.Compression.bf16")
    crash, _ = check(tmp_path, broken)
    assert crash["error"] == "AttributeError: module 'horovod.tensorflow.Compression' has no attribute 'bf16'"
    # in a branch a flag chooses, it may not run
    flagged = TF_LOOP.replace("hvd.Compression.fp16 if", "hvd.Compression.bf16 if")
    assert check(tmp_path, flagged)[0] is None
    keras_only = TF_LOOP.replace("    SegmentationTrainer(model",
                                 "    callbacks = [hvd.callbacks.MetricAverageCallback()]"
                                 "\n    SegmentationTrainer(model")
    crash, _ = check(tmp_path, keras_only)
    assert crash["line"] == line_of(keras_only, "hvd.callbacks.MetricAverageCallback")
    assert crash["error"] == "AttributeError: module 'horovod.tensorflow' has no attribute 'callbacks'"
    assert "(it is in horovod.tensorflow.keras and horovod.keras)" in crash["why"]
    imported = TF_LOOP.replace("import horovod.tensorflow as hvd\n", "import horovod.tensorflow as hvd\n"
                               "from horovod.tensorflow import callbacks\n")
    crash, _ = check(tmp_path, imported)
    assert (crash["line"], crash["error"]) == (line_of(imported, "from horovod.tensorflow import callbacks"),
                                               "ImportError: cannot import name 'callbacks' from 'horovod.tensorflow'")


def test_what_horovod_does_have_and_what_a_script_adds_are_not_crashes(tmp_path):
    keras = TF_LOOP.replace("import horovod.tensorflow as hvd\n", "import horovod.tensorflow as hvd\n"
                            "import horovod.tensorflow.keras as hvdk\n").replace(
        "    SegmentationTrainer(model", "    callbacks = [hvdk.callbacks.MetricAverageCallback()]\n"
        "    SegmentationTrainer(model")
    assert check(tmp_path, keras)[0] is None
    submodule = TF_LOOP.replace("    SegmentationTrainer(model", "    state = hvd.elastic.TensorFlowKerasState(model)\n"
                                "    SegmentationTrainer(model")
    assert check(tmp_path, submodule)[0] is None
    dunder = TF_LOOP.replace("    hvd.init()\n", "    hvd.init()\n    print(hvd.__file__, hvd.__name__)\n")
    assert check(tmp_path, dunder)[0] is None  # what every module has
    added = TF_LOOP.replace("    hvd.init()\n", "    hvd.init()\n    hvd.profiled = {}\n").replace(
        "    SegmentationTrainer(model", "    print(hvd.profiled)\n    SegmentationTrainer(model")
    assert check(tmp_path, added)[0] is None
    # `hvd` is a parameter here, not the module: nothing is known about what it holds
    param = TF_LOOP.replace("def make_data(batch_size):", "def make_data(batch_size, hvd=None):").replace(
        "return tf.data.Dataset", "hvd.callbacks\n    return tf.data.Dataset")
    assert check(tmp_path, param)[0] is None


KERAS_FIT = Source(textwrap.dedent("""
    import tensorflow as tf
    import horovod.tensorflow.keras as hvd

    BATCH, EPOCHS, BASE_LR = 64, 20, 0.001


    def build_model():
        return tf.keras.Sequential([tf.keras.Input((28, 28)), tf.keras.layers.Flatten(), tf.keras.layers.Dense(10)])


    def callbacks_for(rank):
        cbs = [hvd.callbacks.BroadcastGlobalVariablesCallback(0), hvd.callbacks.MetricAverageCallback(),
               hvd.callbacks.LearningRateWarmupCallback(initial_lr=BASE_LR * hvd.size(), warmup_epochs=3, verbose=1)]
        if rank == 0:
            cbs.append(tf.keras.callbacks.ModelCheckpoint("./checkpoint-{epoch}.keras"))
        return cbs


    hvd.init()
    gpus = tf.config.list_physical_devices("GPU")
    if gpus:
        tf.config.set_visible_devices(gpus[hvd.local_rank()], "GPU")
    (x, y), _ = tf.keras.datasets.fashion_mnist.load_data()
    data = tf.data.Dataset.from_tensor_slices((x / 255.0, y)).shard(hvd.size(), hvd.rank()).shuffle(1000).batch(BATCH)
    model = build_model()
    model.compile(optimizer=hvd.DistributedOptimizer(tf.keras.optimizers.Adam(BASE_LR * hvd.size())),
                  loss=tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True), metrics=["accuracy"])
    model.fit(data, epochs=EPOCHS, callbacks=callbacks_for(hvd.rank()), verbose=2 if hvd.rank() == 0 else 0)
"""))


def test_a_required_argument_left_out_of_a_horovod_callback_is_a_type_error(tmp_path):
    assert check(tmp_path, KERAS_FIT) == (None, {})
    broken = KERAS_FIT.replace("initial_lr=BASE_LR * hvd.size(), ", "")
    crash, flagged = check(tmp_path, broken)
    assert crash["line"] == line_of(broken, "LearningRateWarmupCallback")
    assert crash["error"] == "TypeError: LearningRateWarmupCallback.__init__() missing 1 required positional " \
                             "argument: 'initial_lr'"
    positional = KERAS_FIT.replace("initial_lr=BASE_LR * hvd.size(), warmup_epochs=3",
                                   "BASE_LR * hvd.size(), 3")
    assert check(tmp_path, positional)[0] is None
    splat = KERAS_FIT.replace("initial_lr=BASE_LR * hvd.size(), warmup_epochs=3, verbose=1", "**WARMUP").replace(
        "BATCH, EPOCHS, BASE_LR = 64, 20, 0.001\n", "BATCH, EPOCHS, BASE_LR = 64, 20, 0.001\n"
        "WARMUP = dict(initial_lr=BASE_LR, warmup_epochs=3)\n")
    assert check(tmp_path, splat)[0] is None


TORCH_TRAINER = Source(textwrap.dedent("""
    import argparse

    import torch
    import horovod.torch as hvd
    from torch.utils.data import DataLoader, TensorDataset
    from torch.utils.data.distributed import DistributedSampler


    def train(model, epoch, loader, sampler, criterion, optimizer):
        model.train()
        sampler.set_epoch(epoch)
        total = 0.0
        for x, y in loader:
            optimizer.zero_grad()
            loss = criterion(model(x), y)
            loss.backward()
            optimizer.step()
            total += loss.item()
        return total / max(1, len(loader))


    class Evaluator:
        def __init__(self, loader, criterion):
            self.loader, self.criterion = loader, criterion

        def _batch_loss(self, model, x, y):
            return self.criterion(model(x), y).item()

        def evaluate(self, model):
            model.eval()
            total, batches = 0.0, 0
            with torch.no_grad():
                for x, y in self.loader:
                    total += self._batch_loss(model, x, y)
                    batches += 1
            return hvd.allreduce(torch.tensor(total / max(1, batches))).item()


    def main():
        parser = argparse.ArgumentParser()
        parser.add_argument("--epochs", type=int, default=2)
        parser.add_argument("--lr", type=float, default=0.05)
        args = parser.parse_args()
        hvd.init()
        torch.set_num_threads(1)
        data = TensorDataset(torch.randn(256, 4), torch.randn(256, 1))
        sampler = DistributedSampler(data, num_replicas=hvd.size(), rank=hvd.rank())
        loader = DataLoader(data, batch_size=32, sampler=sampler)
        model = torch.nn.Linear(4, 1)
        criterion = torch.nn.MSELoss()
        optimizer = torch.optim.SGD(model.parameters(), lr=args.lr * hvd.size())
        optimizer = hvd.DistributedOptimizer(optimizer, named_parameters=model.named_parameters())
        hvd.broadcast_parameters(model.state_dict(), root_rank=0)
        evaluator = Evaluator(loader, criterion)
        for epoch in range(args.epochs):
            loss = train(model, epoch, loader, sampler, criterion, optimizer)
            val = evaluator.evaluate(model)
            if hvd.rank() == 0:
                print(epoch, loss, val)
                torch.save(model.state_dict(), "model.pt")


    if __name__ == "__main__":
        main()
"""))


def test_calls_of_the_scripts_own_functions_with_arguments_they_do_not_take(tmp_path):
    assert check(tmp_path, TORCH_TRAINER) == (None, {})
    extra = TORCH_TRAINER.replace("loss = train(model, epoch, loader, sampler, criterion, optimizer)",
                                  "loss = train(model, epoch, loader, sampler, criterion, optimizer, args)")
    crash, flagged = check(tmp_path, extra)
    assert crash["line"] == line_of(extra, "loss = train(model")
    assert crash["error"] == "TypeError: train() takes 6 positional arguments but 7 were given"
    assert crash["why"] == f"train() defined at line {line_of(extra, 'def train(')} takes (model, epoch, loader, " \
                           "sampler, criterion, optimizer)"
    assert flagged == {}
    method = TORCH_TRAINER.replace("self._batch_loss(model, x, y)", "self._batch_loss(model, x)")
    crash, _ = check(tmp_path, method)
    assert crash["error"] == "TypeError: Evaluator._batch_loss() missing 1 required positional argument: 'y'"
    constructor = TORCH_TRAINER.replace("Evaluator(loader, criterion)", "Evaluator(loader, criterion, args.epochs)")
    crash, _ = check(tmp_path, constructor)
    assert crash["error"] == "TypeError: Evaluator.__init__() takes 3 positional arguments but 4 were given"
    keyword = TORCH_TRAINER.replace("evaluator.evaluate(model)", "evaluator.evaluate(model)\n"
                                    "        train(model, epoch, loader, sampler, criterion, optimizer=optimizer, "
                                    "clip=1.0)")
    crash, _ = check(tmp_path, keyword)
    assert crash["error"] == "TypeError: train() got an unexpected keyword argument 'clip'"


def test_calls_whose_target_or_arguments_the_source_does_not_fix_are_not_crashes(tmp_path):
    call = "loss = train(model, epoch, loader, sampler, criterion, optimizer)"
    twins = {
        "a decorator that may change the signature": TORCH_TRAINER.replace(
            "def train(model,", "@log_calls\ndef train(model,").replace(
            "import argparse\n", "import argparse\nfrom helpers import log_calls\n"),
        "defined twice": TORCH_TRAINER.replace("class Evaluator:", "if torch.cuda.is_available():\n"
                                               "    def train(*args):\n        return 0.0\n\n\nclass Evaluator:"),
        "arguments unpacked": TORCH_TRAINER.replace(call, call.replace("train(", "train(*(") + ")"),
        "a parameter taking the rest": TORCH_TRAINER.replace(
            "criterion, optimizer):\n    model.train()", "criterion, optimizer, *extra):\n    model.train()").replace(
            call, call.replace("optimizer)", "optimizer, args)")),
        "a method a subclass may override": TORCH_TRAINER.replace(
            "self._batch_loss(model, x, y)", "self._batch_loss(model, x)").replace(
            "def main():", "class FastEvaluator(Evaluator):\n    def _batch_loss(self, model, x, y=None):\n"
            "        return 0.0\n\n\ndef main():"),
    }
    for what, source in twins.items():
        assert check(tmp_path, source)[0] is None, what


@pytest.mark.skipif(importlib.util.find_spec("horovod") is None, reason="Horovod is not installed here")
def test_the_committed_horovod_facts_are_the_installed_horovods():
    from hvdkit.check import horovod_api
    assert horovod_api.main(["--check"]) == 0, "run python -m hvdkit.check.horovod_api"


# A hyperparameter sweep: each trial trains in a function called from a list comprehension over the trials.
# The comprehension's element runs for every trial, as a `for` loop's body does; with an `if` clause it may
# run for none, and the crash is not certain.
SWEEP = Source(textwrap.dedent("""
    import tensorflow as tf
    import horovod.tensorflow.keras as hvd

    hvd.init()
    (x, y), _ = tf.keras.datasets.fashion_mnist.load_data()
    data = tf.data.Dataset.from_tensor_slices((x / 255.0, y)).shard(hvd.size(), hvd.rank()).batch(64)


    def trial(lr, epochs):
        model = tf.keras.Sequential([tf.keras.Input((28, 28)), tf.keras.layers.Flatten(), tf.keras.layers.Dense(10)])
        model.compile(optimizer=hvd.DistributedOptimizer(tf.keras.optimizers.Adam(lr * hvd.size())),
                      loss=tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True))
        cbs = [hvd.callbacks.BroadcastGlobalVariablesCallback(0),
               hvd.callbacks.LearningRateWarmupCallback(#WARMUP#)]
        return model.fit(data, epochs=epochs, callbacks=cbs, verbose=0).history["loss"][-1]


    grid = [1e-3, 3e-3, 1e-2]
    losses = [trial(lr, 2) for lr in grid#IF#]
    if hvd.rank() == 0:
        print(min(zip(losses, grid)))
"""))


def test_a_crash_in_a_trial_run_from_a_list_comprehension_is_certain(tmp_path):
    right = SWEEP.replace("#WARMUP#", "initial_lr=lr * hvd.size(), warmup_epochs=1").replace("#IF#", "")
    assert check(tmp_path, right)[0] is None
    broken = SWEEP.replace("#WARMUP#", "warmup_epochs=1").replace("#IF#", "")
    crash, _ = check(tmp_path, broken)
    assert crash["line"] == line_of(broken, "LearningRateWarmupCallback")
    assert crash["error"].startswith("TypeError: LearningRateWarmupCallback.__init__() missing 1 required")
    filtered = SWEEP.replace("#WARMUP#", "warmup_epochs=1").replace("#IF#", " if lr < 1.0")
    assert check(tmp_path, filtered)[0] is None
