"""`hvdkit check`, static pass: a script checked on its own, its project's modules absent (issue 39: "a call
into code that cannot be read makes the step 'cannot tell', naming the call, never 'missing'"; "'wrong' only
with the line that makes it wrong").

Steps 5, 6 and 7 ask whether the call into code that is not there is the step's own action, by what it is
handed and what its result becomes: the checkpoint's writer, the optimizer's wrapper, fit's callbacks, the
training step itself. Each case is a script written from scratch into tmp_path (a pyproject.toml makes
tmp_path the project's root, so `mylab` is the project's own package, absent), beside its twin where the
script itself shows the step done or broken, so that what the script shows is still judged.
"""
import textwrap

import pytest

from hvdkit.check import FLAGGED, MISSING, OK, UNKNOWN, WRONG
from hvdkit.check.static import analyze

TORCH = '''
    """Train a small classifier with Horovod: horovodrun -np 2 python train.py"""
    import os

    import horovod.torch as hvd
    import torch
    import torch.nn.functional as F
    from torch.utils.data import DataLoader, TensorDataset
    from torch.utils.data.distributed import DistributedSampler
    #IMPORTS


    def main():
        hvd.init()
        torch.set_num_threads(1)
        if torch.cuda.is_available():
            torch.cuda.set_device(hvd.local_rank())
        data = TensorDataset(torch.randn(256, 8), torch.randint(0, 2, (256,)))
        sampler = DistributedSampler(data, num_replicas=hvd.size(), rank=hvd.rank())
        loader = DataLoader(data, batch_size=32, sampler=sampler)
        model = torch.nn.Linear(8, 2)
        optimizer = torch.optim.SGD(model.parameters(), lr=0.01 * hvd.size())
        #WRAP
        hvd.broadcast_parameters(model.state_dict(), root_rank=0)
        hvd.broadcast_optimizer_state(optimizer, root_rank=0)
        for epoch in range(3):
            sampler.set_epoch(epoch)
            total = torch.zeros(1)
            for x, y in loader:
                optimizer.zero_grad()
                loss = F.cross_entropy(model(x), y)
                loss.backward()
                optimizer.step()
                total += loss.detach()
            mean = hvd.allreduce(total, name="loss")
            if hvd.rank() == 0:
                print(epoch, mean.item())
            #SAVE


    if __name__ == "__main__":
        main()
'''
TORCH_WRAP = "optimizer = hvd.DistributedOptimizer(optimizer, named_parameters=model.named_parameters())"
TORCH_SAVE = 'if hvd.rank() == 0:\n            torch.save(model.state_dict(), os.path.join("ckpt", f"{epoch}.pt"))'

KERAS = '''
    """Train a small classifier with Horovod and Keras: horovodrun -np 2 python train.py"""
    import horovod.tensorflow.keras as hvd
    import tensorflow as tf
    #IMPORTS


    def main():
        hvd.init()
        gpus = tf.config.list_physical_devices("GPU")
        if gpus:
            tf.config.set_visible_devices(gpus[hvd.local_rank()], "GPU")
        x = tf.random.normal((256, 8))
        y = tf.random.uniform((256,), maxval=2, dtype=tf.int32)
        data = tf.data.Dataset.from_tensor_slices((x, y)).shard(hvd.size(), hvd.rank()).batch(32)
        #MODEL
        #COMPILE
        #CALLBACKS
        model.fit(data, epochs=3, callbacks=callbacks, verbose=2 if hvd.rank() == 0 else 0)
        #AFTER


    if __name__ == "__main__":
        main()
'''
KERAS_MODEL = "model = tf.keras.Sequential([tf.keras.Input((8,)), tf.keras.layers.Dense(2)])"
KERAS_COMPILE = ('model.compile(optimizer=hvd.DistributedOptimizer(tf.keras.optimizers.Adam(0.001 * hvd.size())),'
                 '\n                  loss="sparse_categorical_crossentropy", metrics=["accuracy"])')
KERAS_CALLBACKS = ('callbacks = [hvd.callbacks.BroadcastGlobalVariablesCallback(0), '
                   'hvd.callbacks.MetricAverageCallback()]\nif hvd.rank() == 0:\n'
                   '    callbacks.append(tf.keras.callbacks.ModelCheckpoint("ckpt.keras"))')


def script(template, **parts):
    """The template with its `#NAME` lines replaced (the defaults: every step done in the script itself)."""
    defaults = {"IMPORTS": "", "WRAP": TORCH_WRAP, "SAVE": TORCH_SAVE, "MODEL": KERAS_MODEL,
                "COMPILE": KERAS_COMPILE, "CALLBACKS": KERAS_CALLBACKS, "AFTER": ""}
    text = textwrap.dedent(template).lstrip("\n")
    for name, value in {**defaults, **parts}.items():
        line = next((ln for ln in text.splitlines() if ln.strip() == f"#{name}"), None)
        if line is not None:
            indent = line[:len(line) - len(line.lstrip())]
            text = text.replace(line, textwrap.indent(textwrap.dedent(value), indent).rstrip() if value else "")
    return text


def check(tmp_path, source):
    """{step: Finding} for `source` written as tmp_path/train.py, tmp_path the project's root (mylab/ absent)."""
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'demo'\n")
    path = tmp_path / "train.py"
    path.write_text(source)
    return analyze(str(path))[0]


def verdicts(findings):
    return {n: f.verdict for n, f in findings.items() if f.verdict in FLAGGED or f.verdict == UNKNOWN}


@pytest.mark.parametrize("template", [TORCH, KERAS])
def test_the_base_scripts_do_every_step(tmp_path, template):
    assert verdicts(check(tmp_path, script(template))) == {}


# --- step 7: who writes, and whether anything is written ---------------------------------------------------
def test_an_unguarded_helper_of_an_absent_module_is_cannot_tell_naming_it(tmp_path):
    found = check(tmp_path, script(TORCH, IMPORTS="from mylab.ckpt import save_checkpoint",
                                   SAVE='save_checkpoint({"model": model.state_dict(), "epoch": epoch}, "ckpt.pt")'))
    assert verdicts(found) == {7: UNKNOWN}
    assert "`save_checkpoint(...)`" in found[7].evidence and "mylab" in found[7].evidence


def test_the_same_helper_visibly_guarded_by_rank_is_ok(tmp_path):
    found = check(tmp_path, script(TORCH, IMPORTS="from mylab.ckpt import save_checkpoint",
                                   SAVE='if hvd.rank() == 0:\n'
                                        '    save_checkpoint({"model": model.state_dict()}, "c.pt")'))
    assert found[7].verdict == OK


def test_the_same_helper_guarded_by_the_local_rank_is_wrong_at_its_line(tmp_path):
    # the helper takes the path first, the model third: its state is read from any argument
    source = script(TORCH, IMPORTS="from mylab.ckpt import save_checkpoint",
                    SAVE='if hvd.local_rank() == 0:\n    save_checkpoint("ckpt", epoch, model, optimizer)')
    found = check(tmp_path, source)
    assert found[7].verdict == WRONG and "local rank 0" in found[7].evidence
    assert source.splitlines()[found[7].line - 1].strip().startswith("save_checkpoint(")


def test_a_write_guarded_by_a_flag_of_an_absent_module_is_cannot_tell_naming_it(tmp_path):
    # `dist.is_chief` may be `hvd.rank() == 0`, set in the absent module: no verdict on who writes
    found = check(tmp_path, script(TORCH, IMPORTS="from mylab import dist",
                                   SAVE='if dist.is_chief:\n    torch.save(model.state_dict(), "last.pt")'))
    assert verdicts(found) == {7: UNKNOWN}
    assert "dist.is_chief" in found[7].evidence


def test_the_same_write_guarded_by_a_flag_the_script_sets_alike_on_every_rank_is_wrong(tmp_path):
    found = check(tmp_path, script(TORCH, IMPORTS="IS_CHIEF = True",
                                   SAVE='if IS_CHIEF:\n    torch.save(model.state_dict(), "last.pt")'))
    assert found[7].verdict == WRONG and "every rank" in found[7].evidence


def test_a_visible_write_on_every_rank_is_still_wrong_beside_absent_modules(tmp_path):
    found = check(tmp_path, script(TORCH, IMPORTS="from mylab.ckpt import save_checkpoint",
                                   SAVE='torch.save(model.state_dict(), "last.pt")\n'
                                        'save_checkpoint({"model": model.state_dict()}, "c.pt")'))
    assert found[7].verdict == WRONG and "every rank" in found[7].evidence


def test_a_method_of_an_object_an_absent_class_made_is_cannot_tell(tmp_path):
    source = script(TORCH, IMPORTS="from mylab.ckpt import Saver", SAVE="saver.save(epoch, model, optimizer)")
    source = source.replace("    for epoch in range(3):", '    saver = Saver("ckpt")\n    for epoch in range(3):')
    found = check(tmp_path, source)
    assert found[7].verdict == UNKNOWN and "`saver.save(...)`" in found[7].evidence and "Saver(...)" in \
        found[7].evidence


def test_a_keras_models_own_save_is_the_frameworks_even_when_an_absent_module_built_it(tmp_path):
    source = script(KERAS, IMPORTS="from mylab.nets import build_classifier", MODEL="model = build_classifier(8, 2)",
                    CALLBACKS="callbacks = [hvd.callbacks.BroadcastGlobalVariablesCallback(0), "
                              "hvd.callbacks.MetricAverageCallback()]", AFTER='model.save("final.keras")')
    found = check(tmp_path, source)
    assert found[7].verdict == WRONG and "every rank" in found[7].evidence


def test_state_handed_to_an_absent_exporter_is_cannot_tell_not_missing(tmp_path):
    found = check(tmp_path, script(TORCH, IMPORTS="from mylab.io import export_model",
                                   SAVE='export_model(model, os.path.join("out", "model"))'))
    assert found[7].verdict == UNKNOWN and "`export_model(...)`" in found[7].evidence


def test_state_handed_alone_has_nowhere_to_be_written_so_missing(tmp_path):
    found = check(tmp_path, script(TORCH, IMPORTS="from mylab.dist import check_in_sync",
                                   SAVE="check_in_sync(model.state_dict())"))
    assert found[7].verdict == MISSING


def test_no_write_and_no_unread_code_handed_the_model_is_missing(tmp_path):
    found = check(tmp_path, script(TORCH, IMPORTS="from mylab.log import log_line", SAVE='log_line("epoch done")'))
    assert found[7].verdict == MISSING


# --- step 6: fit's callbacks made by code not read ---------------------------------------------------------
YAML_CFG = 'import yaml\nwith open("cfg.yaml") as fh:\n    cfg = yaml.safe_load(fh)\ncallbacks = make_callbacks(cfg)'


def test_callbacks_from_an_absent_module_are_cannot_tell_naming_that_call_only(tmp_path):
    found = check(tmp_path, script(KERAS, IMPORTS="from mylab.training import make_callbacks", CALLBACKS=YAML_CFG))
    assert found[6].verdict == UNKNOWN and "`make_callbacks(...)`" in found[6].evidence
    # what it is handed makes no callback: the config reader is not named (nor for the checkpoint)
    assert "safe_load" not in found[6].evidence and "safe_load" not in found[7].evidence


def test_callbacks_unpacked_from_what_an_absent_module_returns_are_cannot_tell(tmp_path):
    """`callbacks, lr = distributed_callbacks(...)`: an element of what code not read returns is made there."""
    found = check(tmp_path, script(KERAS, IMPORTS="from mylab.training import distributed_callbacks",
                                   CALLBACKS="callbacks, warm_lr = distributed_callbacks(0.001, 5)"))
    assert found[6].verdict == UNKNOWN and "`distributed_callbacks(...)`" in found[6].evidence
    # the other element of the same kind of pair, made by the script itself, is judged
    found = check(tmp_path, script(KERAS, IMPORTS="from mylab.training import distributed_callbacks",
                                   CALLBACKS="warm_lr, callbacks = distributed_callbacks(0.001, 5), []"))
    assert found[6].verdict == MISSING


def test_callbacks_of_the_script_alone_without_a_broadcast_are_missing(tmp_path):
    found = check(tmp_path, script(KERAS, IMPORTS="from mylab.training import make_callbacks",
                                   CALLBACKS="extra = make_callbacks()\n"
                                             "callbacks = [hvd.callbacks.MetricAverageCallback()]"))
    assert found[6].verdict == MISSING


def test_a_broadcast_from_each_ranks_own_root_is_wrong_beside_absent_callbacks(tmp_path):
    found = check(tmp_path, script(KERAS, IMPORTS="from mylab.training import make_callbacks",
                                   CALLBACKS="callbacks = make_callbacks() + "
                                             "[hvd.callbacks.BroadcastGlobalVariablesCallback(hvd.rank())]"))
    assert found[6].verdict == WRONG and "root_rank" in found[6].evidence


def test_a_known_librarys_callbacks_cannot_broadcast(tmp_path):
    # wandb knows nothing of Horovod (project.THIRD_PARTY): handed nothing of it, it does no Horovod step
    found = check(tmp_path, script(KERAS, IMPORTS="import wandb",
                                   CALLBACKS="callbacks = [wandb.keras.WandbCallback()]"))
    assert found[6].verdict == MISSING


# --- step 5: the wrapper or the training step in code not read ---------------------------------------------
def test_an_optimizer_wrapped_by_an_absent_helper_is_cannot_tell(tmp_path):
    found = check(tmp_path, script(TORCH, IMPORTS="from mylab import dist", WRAP="optimizer = dist.wrap(optimizer)"))
    assert verdicts(found) == {5: UNKNOWN} and "`dist.wrap(...)`" in found[5].evidence


def test_the_same_optimizer_left_plain_is_missing(tmp_path):
    found = check(tmp_path, script(TORCH, IMPORTS="from mylab import dist", WRAP="dist.report(optimizer)"))
    assert found[5].verdict == MISSING


def test_a_keras_model_of_an_absent_class_may_average_in_its_own_train_step(tmp_path):
    found = check(tmp_path, script(KERAS, IMPORTS="from mylab.nets import Classifier", MODEL="model = Classifier(2)",
                                   COMPILE='model.compile(optimizer=tf.keras.optimizers.Adam(0.001 * hvd.size()),'
                                           ' loss="mse")'))
    assert found[5].verdict == UNKNOWN and "`model.fit(...)`" in found[5].evidence and "Classifier(...)" in \
        found[5].evidence


def test_a_keras_model_the_script_builds_with_a_plain_optimizer_is_missing(tmp_path):
    found = check(tmp_path, script(KERAS, IMPORTS="from mylab.nets import Classifier", MODEL=KERAS_MODEL,
                                   COMPILE='model.compile(optimizer=tf.keras.optimizers.Adam(0.001 * hvd.size()),'
                                           ' loss="mse")'))
    assert found[5].verdict == MISSING


def test_a_known_librarys_model_with_a_plain_optimizer_is_missing(tmp_path):
    # transformers is not installed here: known as a library (project.THIRD_PARTY), not the project's own code
    found = check(tmp_path, script(KERAS, IMPORTS="from transformers import TFAutoModelForSequenceClassification",
                                   MODEL='model = TFAutoModelForSequenceClassification.from_pretrained("bert-base")',
                                   COMPILE='model.compile(optimizer=tf.keras.optimizers.Adam(0.001 * hvd.size()),'
                                           ' loss="mse")'))
    assert found[5].verdict == MISSING


TRAINER = '''
    """Train with the lab's Trainer: horovodrun -np 2 python train.py"""
    import horovod.torch as hvd
    import torch
    from mylab.engine import Trainer, make_loader


    def main():
        hvd.init()
        torch.set_num_threads(1)
        if torch.cuda.is_available():
            torch.cuda.set_device(hvd.local_rank())
        loader = make_loader("data/", rank=hvd.rank(), world=hvd.size())
        model = torch.nn.Linear(8, 2)
        optimizer = torch.optim.SGD(model.parameters(), lr=0.01 * hvd.size())
        hvd.broadcast_parameters(model.state_dict(), root_rank=0)
        trainer = Trainer(model, optimizer)
        #RUN


    if __name__ == "__main__":
        main()
'''


@pytest.mark.parametrize("run", ["trainer.fit(loader, epochs=3)", "trainer.train(loader)"])
def test_a_trainer_of_an_absent_module_runs_the_step_so_cannot_tell(tmp_path, run):
    found = check(tmp_path, script(TRAINER, RUN=run))
    assert found[5].verdict == UNKNOWN and f"`{run.split('(')[0]}(...)`" in found[5].evidence


def test_the_same_trainers_loop_written_in_the_script_with_a_plain_optimizer_is_missing(tmp_path):
    found = check(tmp_path, script(TRAINER, RUN='''
        for x, y in loader:
            optimizer.zero_grad()
            torch.nn.functional.cross_entropy(model(x), y).backward()
            optimizer.step()
    '''))
    assert found[5].verdict == MISSING


# --- step 6: a trainer object of an absent module holds the models ---------------------------------------------
# `trainer.step(x)` per batch: the pass takes the trainer for what steps; `trainer.sync()` before the loop, a
# method of that object in a statement of its own, may broadcast the models it holds.
OWN_TRAINER = '''
    """Adversarial autoencoder: horovodrun -np 2 python train.py"""
    import horovod.torch as hvd
    import torch
    from torch.utils.data import DataLoader, TensorDataset
    from torch.utils.data.distributed import DistributedSampler
    from mylab.trainer import AdversarialTrainer


    def main():
        hvd.init()
        torch.set_num_threads(1)
        data = TensorDataset(torch.randn(256, 16))
        sampler = DistributedSampler(data, num_replicas=hvd.size(), rank=hvd.rank())
        trainer = AdversarialTrainer(lr=1e-3 * hvd.size())
        #SYNC
        for epoch in range(3):
            sampler.set_epoch(epoch)
            for (x,) in DataLoader(data, batch_size=32, sampler=sampler):
                losses = trainer.step(x)
            if hvd.rank() == 0:
                print(epoch, losses)
                trainer.save("aae.pt")


    if __name__ == "__main__":
        main()
'''


def test_a_method_run_before_the_loop_on_an_absent_trainer_may_broadcast_its_models(tmp_path):
    found = check(tmp_path, script(OWN_TRAINER, SYNC="trainer.sync()"))
    assert found[6].verdict == UNKNOWN and "`trainer.sync(...)`" in found[6].evidence


def test_the_same_trainer_with_nothing_run_before_its_loop_is_missing_the_broadcast(tmp_path):
    found = check(tmp_path, script(OWN_TRAINER, SYNC="print('start')"))
    assert found[6].verdict == MISSING
