"""`hvdkit check` on faults a blind held-out read (sets zzzw to zzzz: interatomic potentials, templates, recurrent
language models, likelihood models) showed, each as a broken/correct pair written from scratch: a Keras model
compiled with a fresh optimizer from a table of classes while the wrapped one is kept unused, a summed loss
reported through exp() as a perplexity, truncated-BPTT batches cut by index from a stride loop, Horovod used
before an init that an option (off by default, parsed in a module) guards, an LR scaled after the optimizer was
built with it, a meter whose metric is a property, an accumulator of a module that is not there, and a
tokenizer's classmethod `fit` that is no training."""
import textwrap

from crash_scripts import Source, check, check_project


def _files(files):
    return {rel: Source(textwrap.dedent(text)) for rel, text in files.items()}


KERAS_TRAINER = _files({
    "train.py": """
        import keras
        import numpy as np
        import tensorflow as tf
        import horovod.tensorflow.keras as hvd

        from seg.models import get_optimizer
        from seg.trainer import Trainer

        CONFIG = {"optimizer": {"name": "adam", "lr": 1e-3}, "epochs": 3}


        def main():
            hvd.init()
            gpus = tf.config.list_physical_devices("GPU")
            if gpus:
                tf.config.set_visible_devices(gpus[hvd.local_rank()], "GPU")
            rng = np.random.RandomState(0)
            x, y = rng.rand(1024, 8).astype("float32"), rng.randint(0, 3, 1024)
            ds = tf.data.Dataset.from_tensor_slices((x, y)).shard(hvd.size(), hvd.rank()).batch(32)
            model = keras.Sequential([keras.layers.Dense(16, activation="relu"), keras.layers.Dense(3)])
            opt = hvd.DistributedOptimizer(get_optimizer(CONFIG["optimizer"], hvd.size()))
            Trainer(CONFIG, model, opt).fit(ds)


        if __name__ == "__main__":
            main()
        """,
    "seg/__init__.py": "",
    "seg/models.py": """
        import keras

        OPTIMIZERS = {"adam": keras.optimizers.Adam, "sgd": keras.optimizers.SGD}


        def get_optimizer(ocfg, scale=1):
            return OPTIMIZERS[ocfg["name"]](learning_rate=ocfg["lr"] * scale)
        """,
    "seg/trainer.py": """
        import keras
        import horovod.tensorflow.keras as hvd

        from seg.models import get_optimizer


        class Trainer:
            def __init__(self, cfg, model, optimizer):
                self.cfg, self.model, self.optimizer = cfg, model, optimizer
                self.model.compile(optimizer=self.optimizer,
                                   loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True))

            def fit(self, ds):
                callbacks = [hvd.callbacks.BroadcastGlobalVariablesCallback(0)]
                if hvd.rank() == 0:
                    callbacks.append(keras.callbacks.ModelCheckpoint("last.keras"))
                return self.model.fit(ds, epochs=self.cfg["epochs"], callbacks=callbacks,
                                      verbose=1 if hvd.rank() == 0 else 0)
        """,
})


def test_a_model_compiled_with_a_fresh_optimizer_from_a_table_of_classes_steps_unwrapped(tmp_path):
    _, flagged, findings = check_project(tmp_path / "wrapped", KERAS_TRAINER)
    assert 5 not in flagged, findings[5].evidence
    files = dict(KERAS_TRAINER)
    files["seg/trainer.py"] = files["seg/trainer.py"].replace(
        "self.model.compile(optimizer=self.optimizer,",
        "self.model.compile(optimizer=get_optimizer(cfg[\"optimizer\"]),")
    _, flagged, findings = check_project(tmp_path / "fresh", files)
    assert flagged.get(5) == "wrong", findings[5].evidence


LM = Source(textwrap.dedent('''
    """Word-level LSTM language model, truncated BPTT: horovodrun -np 4 python lm.py"""
    import argparse
    import math

    import torch
    import torch.nn as nn
    import horovod.torch as hvd

    p = argparse.ArgumentParser()
    p.add_argument("--lr", type=float, default=20.0)
    p.add_argument("--bptt", type=int, default=35)
    p.add_argument("--batch-size", type=int, default=20)
    p.add_argument("--epochs", type=int, default=4)
    args = p.parse_args()

    hvd.init()
    torch.set_num_threads(1)
    torch.manual_seed(0)
    corpus = torch.randint(0, 1000, (200000,))
    valid = torch.randint(0, 1000, (20000,))


    def batchify(data, streams):
        n = data.size(0) // streams
        return data[:n * streams].view(streams, n).t().contiguous()


    # each rank takes every size-th stream of the corpus cut into batch_size * size streams
    train_data = batchify(corpus, args.batch_size * hvd.size())[:, hvd.rank()::hvd.size()]
    val_data = batchify(valid, 10 * hvd.size())[:, hvd.rank()::hvd.size()]


    class LM(nn.Module):
        def __init__(self):
            super().__init__()
            self.emb, self.rnn, self.out = nn.Embedding(1000, 64), nn.LSTM(64, 64), nn.Linear(64, 1000)

        def forward(self, x, h=None):
            y, h = self.rnn(self.emb(x), h)
            return self.out(y), h


    model = LM()
    criterion = nn.CrossEntropyLoss()
    optimizer = torch.optim.SGD(model.parameters(), lr=args.lr * hvd.size())
    optimizer = hvd.DistributedOptimizer(optimizer, named_parameters=model.named_parameters())
    hvd.broadcast_parameters(model.state_dict(), root_rank=0)


    def detach(h):
        return tuple(t.detach() for t in h)


    def get_batch(source, i):
        n = min(args.bptt, len(source) - 1 - i)
        return source[i:i + n], source[i + 1:i + 1 + n].reshape(-1)


    def evaluate(data):
        model.eval()
        total, h = 0.0, None
        with torch.no_grad():
            for i in range(0, data.size(0) - 1, args.bptt):
                x, y = get_batch(data, i)
                out, h = model(x, h)
                total += len(x) * criterion(out.view(-1, 1000), y).item()
        mean = torch.tensor(total / (data.size(0) - 1))
        return math.exp(hvd.allreduce(mean, op=hvd.Average, name="val_loss").item())


    for epoch in range(args.epochs):
        model.train()
        h = None
        for batch, i in enumerate(range(0, train_data.size(0) - 1, args.bptt)):
            x, y = get_batch(train_data, i)
            h = None if h is None else detach(h)
            optimizer.zero_grad()
            out, h = model(x, h)
            loss = criterion(out.view(-1, 1000), y)
            loss.backward()
            optimizer.step()
        ppl = evaluate(val_data)
        if hvd.rank() == 0:
            print(f"epoch {epoch} valid ppl {ppl:.1f}")
            torch.save(model.state_dict(), "lm.pt")
''').lstrip())


def test_the_lm_is_right_on_every_step(tmp_path):
    crash, flagged = check(tmp_path, LM)
    assert crash is None and flagged == {}


def test_a_summed_loss_reported_through_exp_is_the_sums_perplexity(tmp_path):
    _, flagged = check(tmp_path, LM.replace('op=hvd.Average, name="val_loss"', 'op=hvd.Sum, name="val_loss"'))
    assert flagged == {8: "wrong"}


def test_bptt_batches_cut_by_index_in_a_stride_loop_are_batches_not_the_whole_part(tmp_path):
    # `range(0, data.size(0) - 1, bptt)` steps through this rank's streams a window at a time: the unscaled LR
    # is not "full-batch training, rightly unscaled"
    _, flagged = check(tmp_path, LM.replace("lr=args.lr * hvd.size())", "lr=args.lr)"))
    assert flagged == {4: "missing"}


OPTION_INIT = _files({
    "train.py": """
        import tensorflow as tf
        import horovod.tensorflow as hvd

        from s2s import options

        args = options.parse()
        if args.horovod:
            hvd.init()


        def shards():
            x = tf.random.uniform((512, 8))
            return tf.data.Dataset.from_tensor_slices(x).shard(hvd.size(), hvd.rank()).batch(16)


        for batch in shards():
            print(float(tf.reduce_mean(batch)))
        """,
    "s2s/__init__.py": "",
    "s2s/options.py": """
        import argparse


        def parse(argv=None):
            p = argparse.ArgumentParser()
            p.add_argument("--horovod", action="store_true", help="run under horovodrun")
            p.add_argument("--epochs", type=int, default=3)
            return p.parse_args(argv)
        """,
})


def test_horovod_used_when_the_option_that_guards_init_is_off_by_default_crashes(tmp_path):
    crash, _, _ = check_project(tmp_path / "off", OPTION_INIT)
    assert crash is not None and crash["error"].startswith("ValueError: Horovod has not been initialized")
    assert "--horovod" in crash["why"] and "off by default" in crash["why"]
    files = dict(OPTION_INIT)
    files["s2s/options.py"] = files["s2s/options.py"].replace(
        'p.add_argument("--horovod", action="store_true",', 'p.add_argument("--horovod", type=int, default=1,')
    crash, _, _ = check_project(tmp_path / "on", files)
    assert crash is None


LATE = Source(textwrap.dedent('''
    """VAE on random images: horovodrun -np 2 python vae.py"""
    import types

    import keras
    import numpy as np
    import tensorflow as tf
    import horovod.tensorflow as hvd

    hvd.init()
    gpus = tf.config.list_physical_devices("GPU")
    if gpus:
        tf.config.set_visible_devices(gpus[hvd.local_rank()], "GPU")
    hp = types.SimpleNamespace(lr=1e-3, steps=100, batch=32)
    x = np.random.RandomState(0).rand(2048, 64).astype("float32")
    ds = tf.data.Dataset.from_tensor_slices(x).shard(hvd.size(), hvd.rank()).repeat().batch(hp.batch)
    model = keras.Sequential([keras.layers.Dense(32, activation="relu"), keras.layers.Dense(64)])
    model.build((None, 64))
    #SCALE_EARLY#
    optimizer = keras.optimizers.Adam(learning_rate=hp.lr)
    #SCALE_LATE#


    @tf.function
    def train_step(batch, first):
        with tf.GradientTape() as tape:
            loss = tf.reduce_mean(tf.square(model(batch) - batch))
        tape = hvd.DistributedGradientTape(tape)
        grads = tape.gradient(loss, model.trainable_variables)
        optimizer.apply_gradients(zip(grads, model.trainable_variables))
        if first:
            hvd.broadcast_variables(model.variables, root_rank=0)
            hvd.broadcast_variables(optimizer.variables, root_rank=0)
        return hvd.allreduce(loss)


    for step, batch in enumerate(ds.take(hp.steps)):
        loss = train_step(batch, step == 0)
        if hvd.rank() == 0 and step % 20 == 0:
            print(f"step {step} loss {float(loss):.4f}")
    if hvd.rank() == 0:
        model.save_weights("vae.weights.h5")
''').lstrip())


def test_an_lr_scaled_after_the_optimizer_was_built_with_it_is_not_scaled(tmp_path):
    scaling = "hp.lr = hp.lr * hvd.size()"
    _, flagged = check(tmp_path, LATE.replace("#SCALE_EARLY#", scaling).replace("#SCALE_LATE#\n", ""))
    assert 4 not in flagged
    _, flagged = check(tmp_path, LATE.replace("#SCALE_EARLY#\n", "").replace("#SCALE_LATE#", scaling))
    assert flagged.get(4) == "missing"


FLOW = _files({
    "train.py": """
        import torch
        import horovod.torch as hvd
        from torch.utils.data import DataLoader, TensorDataset
        from torch.utils.data.distributed import DistributedSampler

        from flows.engine import evaluate, train_one_epoch
        from flows.utils import rank0_print

        hvd.init()
        torch.set_num_threads(1)
        data = torch.rand(4096, 16)
        train_set, test_set = TensorDataset(data[:3584]), TensorDataset(data[3584:])
        train_sampler = DistributedSampler(train_set, num_replicas=hvd.size(), rank=hvd.rank())
        test_sampler = DistributedSampler(test_set, num_replicas=hvd.size(), rank=hvd.rank(), shuffle=False)
        train_loader = DataLoader(train_set, batch_size=64, sampler=train_sampler)
        test_loader = DataLoader(test_set, batch_size=64, sampler=test_sampler)
        model = torch.nn.Sequential(torch.nn.Linear(16, 64), torch.nn.Tanh(), torch.nn.Linear(64, 32))
        optimizer = torch.optim.Adam(model.parameters(), lr=1e-3 * hvd.size())
        optimizer = hvd.DistributedOptimizer(optimizer, named_parameters=model.named_parameters())
        hvd.broadcast_parameters(model.state_dict(), root_rank=0)
        for epoch in range(5):
            train_sampler.set_epoch(epoch)
            train_one_epoch(model, train_loader, optimizer)
            te = evaluate(model, test_loader)
            rank0_print("epoch %d test bpd %.4f" % (epoch, te.bpd))
            if hvd.rank() == 0:
                torch.save(model.state_dict(), "flow.pt")
        """,
    "flows/__init__.py": "",
    "flows/utils.py": """
        import horovod.torch as hvd


        def rank0_print(*args):
            if hvd.rank() == 0:
                print(*args)
        """,
    "flows/meters.py": """
        import math


        def bits_per_dim(nll, dims):
            return (nll / dims + math.log(256.0)) / math.log(2.0)


        class BPDMeter:
            def __init__(self, dims):
                self.dims, self.sum, self.count = dims, 0.0, 0

            def update(self, nll):
                self.sum += nll.sum().item()
                self.count += nll.numel()

            @property
            def avg_nll(self):
                return self.sum / max(1, self.count)

            @property
            def bpd(self):
                return bits_per_dim(self.avg_nll, self.dims)
        """,
    "flows/engine.py": """
        import torch

        from flows.meters import BPDMeter


        def nll(model, x):
            return model(x).pow(2).sum(1)


        def train_one_epoch(model, loader, optimizer):
            model.train()
            for (x,) in loader:
                optimizer.zero_grad()
                nll(model, x).mean().backward()
                optimizer.step()


        @torch.no_grad()
        def evaluate(model, loader):
            model.eval()
            meter = BPDMeter(16)
            for (x,) in loader:
                meter.update(nll(model, x))
            return meter
        """,
})


def test_a_meters_property_printed_on_rank_0_over_a_sharded_test_set_is_never_averaged(tmp_path):
    _, flagged, findings = check_project(tmp_path / "local", FLOW)
    assert flagged.get(8) == "missing", findings[8].evidence
    files = dict(FLOW)
    files["flows/meters.py"] = files["flows/meters.py"].replace(
        "        return self.sum / max(1, self.count)\n",
        "        tot = hvd.allreduce(torch.tensor([self.sum, float(self.count)]), op=hvd.Sum, name=\"nll\")\n"
        "        return (tot[0] / tot[1].clamp(min=1)).item()\n").replace(
        "import math\n", "import math\n\nimport torch\nimport horovod.torch as hvd\n")
    _, flagged, findings = check_project(tmp_path / "summed", files)
    assert 8 not in flagged, findings[8].evidence


ABSENT = Source(textwrap.dedent('''
    """Flow benchmark (its helpers live in a package that is not here): horovodrun -np 2 python bench.py"""
    import numpy as np
    import tensorflow as tf
    import horovod.tensorflow as hvd

    from flowbench.utils import Mean
    from flowbench.tok import TextCodec

    hvd.init()
    gpus = tf.config.list_physical_devices("GPU")
    if gpus:
        tf.config.set_visible_devices(gpus[hvd.local_rank()], "GPU")
    codec = TextCodec.fit(["a b c", "b c d"])
    x = np.load("data/points.npy").astype("float32")
    tr_ds = tf.data.Dataset.from_tensor_slices(x[:3584]).shard(hvd.size(), hvd.rank()).repeat().batch(32)
    te_ds = tf.data.Dataset.from_tensor_slices(x[3584:]).shard(hvd.size(), hvd.rank()).batch(32)
    model = tf.keras.Sequential([tf.keras.layers.Dense(16, activation="relu"), tf.keras.layers.Dense(8)])
    model.build((None, 8))
    opt = tf.keras.optimizers.Adam(1e-3 * hvd.size())


    @tf.function
    def train_step(batch):
        with tf.GradientTape() as tape:
            loss = tf.reduce_mean(tf.square(model(batch) - batch))
        tape = hvd.DistributedGradientTape(tape)
        grads = tape.gradient(loss, model.trainable_variables)
        opt.apply_gradients(zip(grads, model.trainable_variables))
        return loss


    it = iter(tr_ds)
    train_step(next(it))
    hvd.broadcast_variables(model.variables, root_rank=0)
    hvd.broadcast_variables(opt.variables, root_rank=0)
    for step in range(1, 201):
        train_step(next(it))
        if step % 50 == 0:
            te = Mean()
            for batch in te_ds:
                te.update(tf.reduce_mean(tf.square(model(batch, training=False) - batch)))
            if hvd.rank() == 0:
                print("step %d test loss %.4f" % (step, te.result()))
                model.save_weights("flow.weights.h5")
''').lstrip())

LOCAL_MEAN = '''

class Mean:
    def __init__(self):
        self.total, self.n = 0.0, 0

    def update(self, value):
        self.total, self.n = self.total + float(value), self.n + 1

    def result(self):
        return self.total / max(self.n, 1)
'''


def test_an_accumulator_of_a_module_that_is_not_there_may_average_its_values(tmp_path):
    # flat: Mean comes from an absent module, so whether the test loss is averaged cannot be told
    crash, flagged = check(tmp_path, ABSENT)
    assert 8 not in flagged
    # the same accumulator written in the script, which never averages: rank 0's own part
    local = ABSENT.replace("from flowbench.utils import Mean\n", "").replace(
        "from flowbench.tok import TextCodec\n", "from flowbench.tok import TextCodec\n" + LOCAL_MEAN)
    _, flagged = check(tmp_path, local)
    assert flagged.get(8) == "missing"


def test_a_tokenizers_classmethod_fit_is_no_training(tmp_path):
    # `TextCodec.fit(texts)` on a class imported from a module that is not here fits no model: the training is
    # the tape's loop over this rank's shard
    _, flagged = check(tmp_path, ABSENT)
    assert 3 not in flagged
    _, flagged = check(tmp_path, ABSENT.replace("x[:3584]).shard(hvd.size(), hvd.rank())", "x[:3584])"))
    assert flagged.get(3) == "missing"
