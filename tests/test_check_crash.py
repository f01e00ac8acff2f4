"""`hvdkit check`'s crash finding (issue 39, item 5): a statement certain to raise when the script trains is
reported once, as the crash (`crash: {line, file, error, why}`, on top of the text report), and the steps
keep their own verdicts. Here: names never defined and argparse options never declared, each broken script
beside correct twins written the ways real code is (namespaces extended after parsing, names from star
imports, globals set in functions, guarded or caught reads), which must not be reported.

The scripts are written from scratch for these tests, in the styles of real training code: helper
functions, a Trainer class, flags with defaults, Keras callbacks."""
import json
import subprocess
import sys
import textwrap

from crash_scripts import Source, check, line_of

TORCH_HEAD = Source(textwrap.dedent("""
    import argparse

    import torch
    import horovod.torch as hvd
    from torch.utils.data import DataLoader, TensorDataset
    from torch.utils.data.distributed import DistributedSampler
"""))

# A PyTorch trainer whose data code builds file paths: correct as written (all eight steps right).
DATA_CODE = Source(TORCH_HEAD + textwrap.dedent("""
    import os


    def build_loaders(args):
        train_dir = os.path.join(args.data_dir, "train")
        samples = torch.load(os.path.join(train_dir, "samples.pt")) if os.path.exists(train_dir) else None
        data = TensorDataset(torch.randn(512, 8), torch.randn(512, 1)) if samples is None else samples
        sampler = DistributedSampler(data, num_replicas=hvd.size(), rank=hvd.rank())
        return DataLoader(data, batch_size=args.batch_size, sampler=sampler), sampler


    def main():
        parser = argparse.ArgumentParser(description="regression on Horovod")
        parser.add_argument("--data-dir", default="data")
        parser.add_argument("--batch-size", type=int, default=32)
        parser.add_argument("--epochs", type=int, default=3)
        parser.add_argument("--lr", type=float, default=0.01)
        args = parser.parse_args()

        hvd.init()
        torch.set_num_threads(1)
        if torch.cuda.is_available():
            torch.cuda.set_device(hvd.local_rank())
        loader, sampler = build_loaders(args)
        model = torch.nn.Linear(8, 1)
        opt = torch.optim.SGD(model.parameters(), lr=args.lr * hvd.size())
        opt = hvd.DistributedOptimizer(opt, named_parameters=model.named_parameters())
        hvd.broadcast_parameters(model.state_dict(), root_rank=0)
        hvd.broadcast_optimizer_state(opt, root_rank=0)
        for epoch in range(args.epochs):
            sampler.set_epoch(epoch)
            for x, y in loader:
                opt.zero_grad()
                loss = torch.nn.functional.mse_loss(model(x), y)
                loss.backward()
                opt.step()
            avg = hvd.allreduce(loss.detach(), name="loss")
            if hvd.rank() == 0:
                print(f"epoch {epoch} loss {avg.item():.4f}")
                torch.save(model.state_dict(), f"model-{epoch}.pt")


    if __name__ == "__main__":
        main()
"""))


def test_the_correct_trainer_has_no_crash_and_no_flag(tmp_path):
    assert check(tmp_path, DATA_CODE) == (None, {})


def test_pyflakes_messages_that_name_nothing_do_not_stop_the_check(tmp_path):
    # an f-string without placeholders is a pyflakes message with no name in it: the check goes on, no crash
    plain = DATA_CODE.replace('print(f"epoch {epoch} loss {avg.item():.4f}")',
                              'print(f"epoch done")\n            print(epoch, avg.item())')
    assert check(tmp_path, plain) == (None, {})


# --- names never defined ---------------------------------------------------------------------------
def test_a_module_never_imported_in_the_data_code_is_the_crash_not_a_wrong_shard(tmp_path):
    broken = DATA_CODE.replace("import os\n", "")
    crash, flagged = check(tmp_path, broken)
    assert crash == {"line": line_of(broken, 'train_dir = os.path.join'), "file": None,
                     "error": "NameError: name 'os' is not defined",
                     "why": "nothing in the script defines or imports os"}
    assert flagged == {}  # the shard is right: its code crashing is the crash, reported once


def test_names_bound_in_ways_pyflakes_knows_are_not_crashes(tmp_path):
    # from x import * (what it binds cannot be seen), a global set in a function before it is read,
    # a fallback in try/except NameError
    star = DATA_CODE.replace("import os\n", "from os import *\nfrom os import path as _p\n")
    star = str.replace(str.replace(star, "os.path.join", "path.join"), "os.path.exists", "path.exists")
    assert check(tmp_path, star)[0] is None
    glob = DATA_CODE.replace("def main():\n", "def configure():\n    global LOG_EVERY\n    LOG_EVERY = 10\n\n\n"
                             "def main():\n    configure()\n").replace(
        'print(f"epoch {epoch}', 'print(LOG_EVERY, f"epoch {epoch}')
    assert check(tmp_path, glob)[0] is None
    fallback = DATA_CODE.replace("def main():\n", "try:\n    profiler\nexcept NameError:\n    profiler = None\n\n\n"
                                 "def main():\n")
    assert check(tmp_path, fallback)[0] is None


def test_an_undefined_name_that_may_not_run_is_not_a_crash(tmp_path):
    # behind a flag off by default, in a function nothing calls, in a handler's fallback, caught
    behind_flag = DATA_CODE.replace('    parser.add_argument("--lr"', '    parser.add_argument("--profile", '
                                    'action="store_true")\n    parser.add_argument("--lr"').replace(
        "    loader, sampler = build_loaders(args)\n",
        "    loader, sampler = build_loaders(args)\n    if args.profile:\n        start_profiler(args)\n")
    assert check(tmp_path, behind_flag)[0] is None
    uncalled = DATA_CODE.replace("def main():\n", "def export_onnx(model):\n    onnx.export(model)\n\n\ndef main():\n")
    assert check(tmp_path, uncalled)[0] is None
    caught = DATA_CODE.replace("    loader, sampler = build_loaders(args)\n",
                               "    try:\n        wandb.init(project='x')\n    except Exception:\n"
                               "        pass\n    loader, sampler = build_loaders(args)\n")
    assert check(tmp_path, caught)[0] is None


def test_a_crash_after_the_training_loop_is_not_a_crash_of_the_first_steps(tmp_path):
    after = DATA_CODE.replace("if __name__ == \"__main__\":\n    main()\n",
                              "if __name__ == \"__main__\":\n    main()\n    print(summary_table)\n")
    assert "summary_table" in after
    assert check(tmp_path, after)[0] is None


def test_a_notebook_export_defines_names_its_runtime_provides(tmp_path):
    notebook = "# Databricks notebook source\n" + DATA_CODE.replace(
        "    loader, sampler = build_loaders(args)\n",
        "    dbutils.fs.mkdirs('/dbfs/tmp/run')\n    loader, sampler = build_loaders(args)\n")
    assert check(tmp_path, notebook)[0] is None


# --- argparse options never declared ---------------------------------------------------------------
KERAS = Source(textwrap.dedent("""
    import argparse

    import tensorflow as tf
    import horovod.tensorflow.keras as hvd


    class EpochLogger(tf.keras.callbacks.Callback):
        \"\"\"Prints the averaged loss every few epochs on rank 0.\"\"\"

        def __init__(self, args):
            super().__init__()
            self.args = args

        def on_epoch_end(self, epoch, logs=None):
            if hvd.rank() == 0 and epoch % self.args.log_every == 0:
                print(epoch, logs)


    def get_args():
        p = argparse.ArgumentParser()
        p.add_argument("--epochs", type=int, default=5)
        p.add_argument("--lr", type=float, default=0.001)
        p.add_argument("--log-every", type=int, default=1)
        return p.parse_args()


    def main():
        args = get_args()
        hvd.init()
        gpus = tf.config.list_physical_devices("GPU")
        if gpus:
            tf.config.set_visible_devices(gpus[hvd.local_rank()], "GPU")
        (x, y), _ = tf.keras.datasets.mnist.load_data()
        x = x[hvd.rank()::hvd.size()] / 255.0
        y = y[hvd.rank()::hvd.size()]
        model = tf.keras.Sequential([tf.keras.layers.Flatten(input_shape=(28, 28)), tf.keras.layers.Dense(10)])
        opt = hvd.DistributedOptimizer(tf.keras.optimizers.Adam(args.lr * hvd.size()))
        model.compile(loss=tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True), optimizer=opt)
        callbacks = [hvd.callbacks.BroadcastGlobalVariablesCallback(0), hvd.callbacks.MetricAverageCallback(),
                     EpochLogger(args)]
        if hvd.rank() == 0:
            callbacks.append(tf.keras.callbacks.ModelCheckpoint("ckpt-{epoch}.h5"))
        model.fit(x, y, batch_size=64, epochs=args.epochs, callbacks=callbacks, verbose=1 if hvd.rank() == 0 else 0)


    if __name__ == "__main__":
        main()
"""))


def test_an_undeclared_option_read_in_a_callback_is_the_crash_not_a_wrong_broadcast(tmp_path):
    assert check(tmp_path, KERAS) == (None, {})
    broken = KERAS.replace('    p.add_argument("--log-every", type=int, default=1)\n', "")
    crash, flagged = check(tmp_path, broken)
    assert crash["line"] == line_of(broken, "self.args.log_every")
    assert crash["error"] == "AttributeError: 'Namespace' object has no attribute 'log_every'"
    assert crash["why"] == f"no add_argument of the parser made at line {line_of(broken, 'p = argparse')} " \
                           "declares log_every, and nothing sets it"
    assert flagged == {}


def test_a_callback_method_keras_calls_after_training_is_not_a_crash_of_training(tmp_path):
    after = KERAS.replace('    p.add_argument("--log-every", type=int, default=1)\n', "").replace(
        "    def on_epoch_end(self, epoch, logs=None):\n"
        "        if hvd.rank() == 0 and epoch % self.args.log_every == 0:",
        "    def on_train_end(self, logs=None):\n        if hvd.rank() == 0 and self.args.log_every:")
    assert check(tmp_path, after)[0] is None


OPTIONS = Source(TORCH_HEAD + textwrap.dedent("""

    def parse_options():
        parser = argparse.ArgumentParser("contrastive pre-training")
        parser.add_argument("--batch_size", type=int, default=64)
        parser.add_argument("--epochs", type=int, default=10)
        parser.add_argument("--learning_rate", type=float, default=0.03)
        parser.add_argument("--lr_decay_epochs", type=str, default="6,8")
        opt = parser.parse_args()
        opt.lr_decay_epochs = [int(e) for e in opt.lr_decay_epochs.split(",")]
        return opt


    def finish_options(opt):
        opt.model_name = f"moco_bs{opt.batch_size}_lr{opt.learning_rate}"
        return opt


    class Trainer:
        def __init__(self, opt):
            self.opt = opt
            self.model = torch.nn.Linear(16, 16)
            base = torch.optim.SGD(self.model.parameters(), lr=opt.learning_rate * hvd.size())
            self.optimizer = hvd.DistributedOptimizer(base, named_parameters=self.model.named_parameters())
            hvd.broadcast_parameters(self.model.state_dict(), root_rank=0)

        def fit(self, loader, sampler):
            for epoch in range(self.opt.start_epoch, self.opt.epochs + 1):
                sampler.set_epoch(epoch)
                for (x,) in loader:
                    self.optimizer.zero_grad()
                    loss = self.model(x).pow(2).mean()
                    loss.backward()
                    self.optimizer.step()
                avg = hvd.allreduce(loss.detach())
                if hvd.rank() == 0:
                    print(self.opt.model_name, epoch, avg.item())
                    torch.save(self.model.state_dict(), "last.pt")


    def main(args):
        hvd.init()
        torch.set_num_threads(1)
        args = finish_options(args)
        data = TensorDataset(torch.randn(256, 16))
        sampler = DistributedSampler(data, num_replicas=hvd.size(), rank=hvd.rank())
        Trainer(args).fit(DataLoader(data, batch_size=args.batch_size, sampler=sampler), sampler)


    if __name__ == "__main__":
        main(parse_options())
"""))


def test_an_option_nothing_declares_is_followed_through_functions_returns_and_a_trainer(tmp_path):
    crash, flagged = check(tmp_path, OPTIONS)
    assert crash["line"] == line_of(OPTIONS, "self.opt.start_epoch")
    assert crash["error"] == "AttributeError: 'Namespace' object has no attribute 'start_epoch'"
    assert flagged == {}
    declared = OPTIONS.replace('    parser.add_argument("--epochs"', '    parser.add_argument("--start_epoch", '
                               'type=int, default=1)\n    parser.add_argument("--epochs"')
    assert check(tmp_path, declared)[0] is None


def test_namespaces_extended_the_ways_real_code_does_are_not_crashes(tmp_path):
    fix = "    opt.lr_decay_epochs = [int(e) for e in opt.lr_decay_epochs.split(\",\")]\n"
    twins = {
        "set after parsing": fix + "    opt.start_epoch = 1\n",
        "setattr with a name": fix + "    setattr(opt, 'start_epoch', 1)\n",
        "setattr from a config": fix + "    for k, v in {'start_epoch': 1}.items():\n        setattr(opt, k, v)\n",
        "vars().update": fix + "    vars(opt).update(start_epoch=1)\n",
        "__dict__.update": fix + "    opt.__dict__.update({'start_epoch': 1})\n",
        "set_defaults": fix + "    parser.set_defaults(start_epoch=1)\n",
        "merged by another module": fix + "    opt = merge_with_yaml(opt, 'config.yaml')\n",
        "given to another module first": fix + "    init_distributed_mode(opt)\n",
    }
    for what, lines in twins.items():
        source = "from project.utils import init_distributed_mode, merge_with_yaml\n" + OPTIONS.replace(fix, lines)
        if what == "set_defaults":
            source = source.replace("    opt = parser.parse_args()\n" + lines,
                                    "    parser.set_defaults(start_epoch=1)\n    opt = parser.parse_args()\n" + fix)
        assert check(tmp_path, source)[0] is None, what


def test_options_declared_where_the_source_shows_them_are_declared(tmp_path):
    parents = OPTIONS.replace(
        '    parser = argparse.ArgumentParser("contrastive pre-training")\n',
        '    base = argparse.ArgumentParser(add_help=False)\n'
        '    base.add_argument("--start-epoch", type=int, default=1)\n'
        '    parser = argparse.ArgumentParser("contrastive pre-training", parents=[base])\n')
    assert check(tmp_path, parents)[0] is None
    group = OPTIONS.replace('    parser.add_argument("--epochs"', '    sched = parser.add_argument_group("schedule")\n'
                            '    sched.add_argument("--start-epoch", type=int, default=1)\n'
                            '    parser.add_argument("--epochs"')
    assert check(tmp_path, group)[0] is None
    sub = OPTIONS.replace('    parser.add_argument("--epochs"', '    commands = parser.add_subparsers(dest="command")\n'
                          '    pretrain = commands.add_parser("pretrain")\n'
                          '    pretrain.add_argument("--start_epoch", type=int, default=1)\n'
                          '    parser.add_argument("--epochs"')
    assert check(tmp_path, sub)[0] is None
    helper = OPTIONS.replace("    opt = parser.parse_args()\n", "    add_schedule_args(parser)\n"
                             "    opt = parser.parse_args()\n").replace(
        "def finish_options(opt):",
        "def add_schedule_args(p):\n    p.add_argument('--start_epoch', type=int, default=0)\n\n\n"
        "def finish_options(opt):")
    assert check(tmp_path, helper)[0] is None


def test_a_parser_that_cannot_be_read_whole_declares_anything(tmp_path):
    other_module = "from models import LightningModel\n" + OPTIONS.replace(
        "    opt = parser.parse_args()\n",
        "    LightningModel.add_model_specific_args(parser)\n    opt = parser.parse_args()\n")
    assert check(tmp_path, other_module)[0] is None
    built_elsewhere = OPTIONS.replace('    parser = argparse.ArgumentParser("contrastive pre-training")\n',
                                      "    parser = options.get_parser()\n")
    assert check(tmp_path, built_elsewhere.replace("import argparse\n", "import argparse\nimport options\n"))[0] \
        is None
    computed = OPTIONS.replace('    parser.add_argument("--epochs"',
                               '    for name in ("start_epoch", "warmup"):\n'
                               '        parser.add_argument("--" + name, type=int, default=0)\n'
                               '    parser.add_argument("--epochs"')
    assert check(tmp_path, computed)[0] is None


def test_guarded_reads_of_an_option_are_not_crashes(tmp_path):
    for read in ("getattr(self.opt, 'start_epoch', 1)",
                 "self.opt.start_epoch if hasattr(self.opt, 'start_epoch') else 1"):
        source = OPTIONS.replace("range(self.opt.start_epoch,", f"range({read},")
        assert check(tmp_path, source)[0] is None, read
    caught = OPTIONS.replace("        for epoch in range(self.opt.start_epoch, self.opt.epochs + 1):\n",
                             "        try:\n            first = self.opt.start_epoch\n"
                             "        except AttributeError:\n            first = 1\n"
                             "        for epoch in range(first, self.opt.epochs + 1):\n")
    assert check(tmp_path, caught)[0] is None


def test_parse_known_args_declares_no_more_than_parse_args(tmp_path):
    known = OPTIONS.replace("    opt = parser.parse_args()\n", "    opt, _unknown = parser.parse_known_args()\n")
    assert check(tmp_path, known)[0]["error"].endswith("no attribute 'start_epoch'")
    indexed = OPTIONS.replace("    opt = parser.parse_args()\n", "    opt = parser.parse_known_args()[0]\n")
    assert check(tmp_path, indexed)[0]["error"].endswith("no attribute 'start_epoch'")


def test_a_namespace_stored_with_other_values_in_one_assignment_is_still_followed(tmp_path):
    # `self.epochs, self.opt = opt.epochs, opt`: the namespace goes to self.opt alone, not to unread code
    paired = OPTIONS.replace("        self.opt = opt\n", "        self.epochs, self.opt = opt.epochs, opt\n")
    crash, flagged = check(tmp_path, paired)
    assert crash["line"] == line_of(paired, "self.opt.start_epoch")
    assert crash["error"] == "AttributeError: 'Namespace' object has no attribute 'start_epoch'"
    assert flagged == {}
    set_there = paired.replace("        self.model = torch.nn.Linear(16, 16)\n",
                               "        self.opt.start_epoch = 1\n        self.model = torch.nn.Linear(16, 16)\n")
    assert check(tmp_path, set_there)[0] is None
    read_first = paired.replace("    Trainer(args).fit(",
                                "    print(args.warmup_steps)\n    Trainer(args).fit(")
    crash, _ = check(tmp_path, read_first)
    assert crash["error"] == "AttributeError: 'Namespace' object has no attribute 'warmup_steps'"
    assert crash["line"] == line_of(read_first, "print(args.warmup_steps)")


def test_an_option_read_in_the_lambda_lambdalr_calls_when_built_is_a_crash(tmp_path):
    # LambdaLR's constructor computes step 0's LR: its lambda runs before the first batch
    warmup = DATA_CODE.replace(
        "    for epoch in range(args.epochs):\n",
        "    sched = torch.optim.lr_scheduler.LambdaLR(\n"
        "        opt, lambda s: min(1.0, (s + 1) / (args.warmup_epochs * len(loader))))\n"
        "    for epoch in range(args.epochs):\n").replace(
        "            opt.step()\n", "            opt.step()\n            sched.step()\n")
    crash, _ = check(tmp_path, warmup)
    assert crash["line"] == line_of(warmup, "opt, lambda s:")
    assert crash["error"] == "AttributeError: 'Namespace' object has no attribute 'warmup_epochs'"
    declared = warmup.replace('    parser.add_argument("--lr"', '    parser.add_argument("--warmup-epochs", '
                              'type=int, default=2)\n    parser.add_argument("--lr"')
    assert check(tmp_path, declared)[0] is None
    # MultiplicativeLR calls its lambda only from the second step: not before training starts
    later = warmup.replace("torch.optim.lr_scheduler.LambdaLR(", "torch.optim.lr_scheduler.MultiplicativeLR(")
    assert check(tmp_path, later)[0] is None
    branch = warmup.replace("lambda s: min(1.0, (s + 1) / (args.warmup_epochs * len(loader)))",
                            "lambda s: 1.0 if s > 100 else (s + 1) / (args.warmup_epochs * len(loader))")
    assert check(tmp_path, branch)[0] is None


# --- the report --------------------------------------------------------------------------------------
def test_the_crash_is_on_top_of_the_text_report_and_in_the_json_with_a_failing_exit(tmp_path):
    broken = DATA_CODE.replace("import os\n", "")
    path = tmp_path / "train.py"
    path.write_text(broken.lstrip())
    line = line_of(broken, "train_dir = os.path.join")
    text = subprocess.run([sys.executable, "-m", "hvdkit", "check", str(path)], capture_output=True, text=True)
    assert text.returncode == 1
    assert text.stdout.splitlines()[2] == f"CRASH at line {line}: NameError: name 'os' is not defined " \
                                          "(nothing in the script defines or imports os)"
    assert text.stdout.rstrip().endswith("no step missing or wrong")
    report = json.loads(subprocess.run([sys.executable, "-m", "hvdkit", "check", str(path), "--json"],
                                       capture_output=True, text=True).stdout)
    assert report["crash"] == {"line": line, "file": None, "error": "NameError: name 'os' is not defined",
                               "why": "nothing in the script defines or imports os"}
    assert report["flagged"] == [] and report["exit_status"] == 1
