"""`hvdkit check`'s crash finding inside a project (issue 39, item 5): a statement certain to raise in one of
the project's own modules on the training path is reported with the module (`file`, relative to the root)
and its line, read through the project's definitions: an undefined name in a tokenizer module, an argparse
option built in one module and read in another, an attribute Horovod's module does not have, a Horovod
call with a keyword its signature does not take. Each broken project beside correct twins written the ways
real projects are (a namespace handed to a library first, a module global set from outside, a module
imported inside a `try`, a call made in one branch of a condition), which must not be reported.

The projects are written from scratch for these tests, in the styles of real training code: a package of
modules, a Trainer class, an options module, helpers that build Horovod's callbacks."""
import textwrap

from crash_scripts import Source, check_project, line_of


def src(text):
    return Source(textwrap.dedent(text).lstrip())

# A sentence classifier split into a package: options, a tokenizer, a data module and a Trainer (all eight
# steps right as written).
TEXTCLS = {
    "train.py": src("""
        import torch
        import horovod.torch as hvd
        from torch.utils.data import DataLoader
        from torch.utils.data.distributed import DistributedSampler

        from textcls import options
        from textcls.data import build_dataset
        from textcls.trainer import Trainer


        def main():
            args = options.parse()
            hvd.init()
            torch.set_num_threads(1)
            if torch.cuda.is_available():
                torch.cuda.set_device(hvd.local_rank())
            data = build_dataset(args.train_file)
            sampler = DistributedSampler(data, num_replicas=hvd.size(), rank=hvd.rank())
            loader = DataLoader(data, batch_size=args.batch_size, sampler=sampler)
            Trainer(args).fit(loader, sampler)


        if __name__ == "__main__":
            main()
    """),
    "textcls/__init__.py": "",
    "textcls/options.py": src("""
        import argparse


        def parse():
            p = argparse.ArgumentParser(description="sentence classifier")
            p.add_argument("--train-file", default="data/train.tsv")
            p.add_argument("--batch-size", type=int, default=32)
            p.add_argument("--epochs", type=int, default=3)
            p.add_argument("--lr", type=float, default=0.1)
            p.add_argument("--log-every", type=int, default=50)
            return p.parse_args()
    """),
    "textcls/vocab.py": src("""
        import re
        from collections import Counter


        def tokenize(text):
            text = re.sub(r"<br\\s*/?>", " ", text.lower())
            return re.findall(r"[a-z']+", text)


        class Vocab:
            def __init__(self):
                self.counts = Counter()

            def add(self, tokens):
                self.counts.update(tokens)

            def features(self, tokens):
                return [len(tokens), sum(self.counts[t] for t in tokens)]
    """),
    "textcls/data.py": src("""
        import torch
        from torch.utils.data import TensorDataset

        from .vocab import Vocab, tokenize


        def read_rows(path):
            with open(path, encoding="utf-8") as fh:
                return [line.rstrip("\\n").split("\\t") for line in fh]


        def build_dataset(path):
            rows = read_rows(path)
            vocab = Vocab()
            for text, _ in rows:
                vocab.add(tokenize(text))
            x = torch.tensor([vocab.features(tokenize(text)) for text, _ in rows], dtype=torch.float32)
            y = torch.tensor([int(label) for _, label in rows])
            return TensorDataset(x, y)
    """),
    "textcls/trainer.py": src("""
        import torch
        import horovod.torch as hvd


        class Trainer:
            def __init__(self, args):
                self.args = args
                self.model = torch.nn.Linear(2, 2)
                sgd = torch.optim.SGD(self.model.parameters(), lr=args.lr * hvd.size())
                self.opt = hvd.DistributedOptimizer(sgd, named_parameters=self.model.named_parameters())
                hvd.broadcast_parameters(self.model.state_dict(), root_rank=0)

            def fit(self, loader, sampler):
                for epoch in range(self.args.epochs):
                    sampler.set_epoch(epoch)
                    for step, (x, y) in enumerate(loader):
                        self.opt.zero_grad()
                        loss = torch.nn.functional.cross_entropy(self.model(x), y)
                        loss.backward()
                        self.opt.step()
                        if step % self.args.log_every == 0 and hvd.rank() == 0:
                            print(f"epoch {epoch} step {step} loss {loss.item():.4f}")
                    avg = hvd.allreduce(loss.detach(), name="loss")
                    if hvd.rank() == 0:
                        print(f"epoch {epoch} loss {avg.item():.4f}")
                        torch.save(self.model.state_dict(), f"model-{epoch}.pt")
    """),
}


def edit(files, rel, old, new):
    return {**files, rel: files[rel].replace(old, new)}


def test_the_correct_project_has_no_crash_and_no_flag(tmp_path):
    crash, flagged, _ = check_project(tmp_path, TEXTCLS)
    assert (crash, flagged) == (None, {})


# --- names never defined in a module -------------------------------------------------------------------
def test_a_module_that_uses_re_without_importing_it_crashes_when_the_training_builds_its_data(tmp_path):
    broken = edit(TEXTCLS, "textcls/vocab.py", "import re\n", "")
    crash, flagged, _ = check_project(tmp_path, broken)
    assert crash == {"line": line_of(broken["textcls/vocab.py"], "re.sub("), "file": "textcls/vocab.py",
                     "error": "NameError: name 're' is not defined",
                     "why": "nothing in textcls/vocab.py defines or imports re"}
    assert flagged == {}  # the data code crashing is the crash, reported once: no step is wrong


def test_undefined_names_in_modules_that_may_not_run_or_are_set_from_outside_are_not_crashes(tmp_path):
    no_re = edit(TEXTCLS, "textcls/vocab.py", "import re\n", "")
    # only called from one branch of a condition the source cannot evaluate
    branch = edit(no_re, "textcls/data.py", "vocab.add(tokenize(text))",
                  "vocab.add(tokenize(text) if text.startswith('<') else text.split())")
    branch = edit(branch, "textcls/data.py", "vocab.features(tokenize(text))", "vocab.features(text.split())")
    assert check_project(tmp_path / "branch", branch)[0] is None
    # a module global the script sets before anything reads it (`vocab.re = re`)
    set_outside = edit(no_re, "train.py", "from textcls import options\n",
                       "import re\nfrom textcls import options, vocab\n\nvocab.re = re\n")
    assert check_project(tmp_path / "set", set_outside)[0] is None
    # the module is imported inside a try that catches the error
    caught = edit(no_re, "textcls/data.py", "from .vocab import Vocab, tokenize\n",
                  "try:\n    from .vocab import Vocab, tokenize\nexcept Exception:\n    Vocab = tokenize = None\n")
    caught = edit(caught, "textcls/vocab.py", "class Vocab:", "_DEFAULT = re.compile('x')\n\n\nclass Vocab:")
    assert check_project(tmp_path / "caught", caught)[0] is None


# --- argparse options declared in one module, read in another ----------------------------------------
def test_an_option_the_options_module_never_declares_read_by_the_trainer_is_the_crash(tmp_path):
    broken = edit(TEXTCLS, "textcls/options.py", '    p.add_argument("--log-every", type=int, default=50)\n', "")
    crash, flagged, _ = check_project(tmp_path, broken)
    assert crash["file"] == "textcls/trainer.py"
    assert crash["line"] == line_of(broken["textcls/trainer.py"], "self.args.log_every")
    assert crash["error"] == "AttributeError: 'Namespace' object has no attribute 'log_every'"
    made = line_of(broken["textcls/options.py"], "p = ")
    assert crash["why"] == f"no add_argument of the parser made at line {made} of textcls/options.py declares " \
                           "log_every, and nothing sets it"
    assert flagged == {}  # a logging line crashing is not the broadcast's or the optimizer's fault


def test_options_set_or_handed_to_code_not_read_are_not_crashes(tmp_path):
    broken = edit(TEXTCLS, "textcls/options.py", '    p.add_argument("--log-every", type=int, default=50)\n', "")
    set_after = edit(broken, "train.py", "    args = options.parse()\n", "    args = options.parse()\n"
                     "    args.log_every = 100\n")
    assert check_project(tmp_path / "set", set_after)[0] is None
    handed = edit(broken, "train.py", "    args = options.parse()\n", "    args = options.parse()\n"
                  "    wandb.config.update(args)\n")
    handed = edit(handed, "train.py", "import torch\n", "import torch\nimport wandb\n")
    assert check_project(tmp_path / "handed", handed)[0] is None


# --- Horovod's API misused in a helper module ----------------------------------------------------------
FLOWERS = {
    "finetune.py": src("""
        import numpy as np
        import tensorflow as tf
        import horovod.tensorflow.keras as hvd

        from flowers import hvd_utils

        hvd.init()
        gpus = tf.config.list_physical_devices("GPU")
        if gpus:
            tf.config.set_visible_devices(gpus[hvd.local_rank()], "GPU")

        x = np.random.default_rng(hvd.rank()).normal(size=(512, 8)).astype("float32")
        y = (x.sum(axis=1) > 0).astype("int32")
        x, y = x[hvd.rank()::hvd.size()], y[hvd.rank()::hvd.size()]
        model = tf.keras.Sequential([tf.keras.Input(shape=(8,)), tf.keras.layers.Dense(2)])
        model.compile(optimizer=hvd_utils.distributed(tf.keras.optimizers.Adam(0.001 * hvd.size())),
                      loss=tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True))
        callbacks = hvd_utils.sync_callbacks()
        if hvd.rank() == 0:
            callbacks.append(tf.keras.callbacks.ModelCheckpoint("best.keras"))
        model.fit(x, y, batch_size=32, epochs=3, callbacks=callbacks, verbose=1 if hvd.rank() == 0 else 0)
    """),
    "flowers/__init__.py": "",
    "flowers/hvd_utils.py": src("""
        import horovod.tensorflow.keras as hvd


        def distributed(optimizer):
            return hvd.DistributedOptimizer(optimizer)


        def sync_callbacks():
            return [
                hvd.callbacks.BroadcastGlobalVariablesCallback(root_rank=0),
                hvd.callbacks.MetricAverageCallback(),
            ]
    """),
}


def test_the_correct_keras_project_has_no_crash_and_no_flag(tmp_path):
    crash, flagged, _ = check_project(tmp_path, FLOWERS, "finetune.py")
    assert (crash, flagged) == (None, {})


def test_a_keyword_horovods_callback_does_not_take_in_a_helper_is_the_crash_and_the_broadcast_is_wrong(tmp_path):
    broken = edit(FLOWERS, "flowers/hvd_utils.py", "BroadcastGlobalVariablesCallback(root_rank=0)",
                  "BroadcastGlobalVariablesCallback(root=0)")
    crash, flagged, findings = check_project(tmp_path, broken, "finetune.py")
    line = line_of(broken["flowers/hvd_utils.py"], "BroadcastGlobalVariablesCallback(root=0)")
    assert (crash["file"], crash["line"]) == ("flowers/hvd_utils.py", line)
    assert crash["error"] == "TypeError: BroadcastGlobalVariablesCallback.__init__() got an unexpected keyword " \
                             "argument 'root'"
    # the broadcast's own call raises: the step cannot achieve its purpose
    assert flagged == {6: "wrong"}
    assert (findings[6].file, findings[6].line) == ("flowers/hvd_utils.py", line)


def test_callbacks_of_horovod_tensorflow_in_a_helper_are_an_attribute_error(tmp_path):
    broken = edit(FLOWERS, "flowers/hvd_utils.py", "import horovod.tensorflow.keras as hvd\n",
                  "import horovod.tensorflow as hvd\n")
    crash, flagged, _ = check_project(tmp_path, broken, "finetune.py")
    assert (crash["file"], crash["line"]) == ("flowers/hvd_utils.py", line_of(broken["flowers/hvd_utils.py"],
                                                                               "BroadcastGlobalVariablesCallback"))
    assert crash["error"] == "AttributeError: module 'horovod.tensorflow' has no attribute 'callbacks'"
    assert flagged.get(6) == "wrong"


def test_horovod_names_a_helper_binds_in_ways_that_may_work_are_not_crashes(tmp_path):
    # the Keras module when it imports, the TF module otherwise: which one runs is not certain
    either = edit(FLOWERS, "flowers/hvd_utils.py", "import horovod.tensorflow.keras as hvd\n",
                  "try:\n    import horovod.tensorflow.keras as hvd\nexcept ImportError:\n"
                  "    import horovod.tensorflow as hvd\n")
    assert check_project(tmp_path / "either", either, "finetune.py")[0] is None
    # a parameter named hvd is whatever the caller hands it (here the Keras module)
    param = edit(FLOWERS, "flowers/hvd_utils.py", "def sync_callbacks():", "def sync_callbacks(hvd):")
    param = edit(param, "flowers/hvd_utils.py", "import horovod.tensorflow.keras as hvd\n",
                 "import horovod.tensorflow as hvd\n")
    param = edit(param, "finetune.py", "hvd_utils.sync_callbacks()", "hvd_utils.sync_callbacks(hvd)")
    assert check_project(tmp_path / "param", param, "finetune.py")[0] is None


def test_names_in_annotations_python_does_not_evaluate_are_not_crashes(tmp_path):
    # postponed annotations (PEP 563) in a module; a local variable's annotation in the trainer
    postponed = edit(TEXTCLS, "textcls/vocab.py", "import re\n", "from __future__ import annotations\n\nimport re\n")
    postponed = edit(postponed, "textcls/vocab.py", "def tokenize(text):", "def tokenize(text: str) -> List[str]:")
    local = edit(postponed, "textcls/trainer.py", "loss = torch.nn", "loss: Tensor = torch.nn")
    assert check_project(tmp_path, local)[0] is None
    evaluated = edit(TEXTCLS, "textcls/vocab.py", "def tokenize(text):", "def tokenize(text: str) -> List[str]:")
    crash = check_project(tmp_path / "evaluated", evaluated)[0]
    assert (crash["file"], crash["error"]) == ("textcls/vocab.py", "NameError: name 'List' is not defined")
