"""`hvdkit check`, static pass, steps 7 and 8 and the validation note, on the shapes held-out scripts showed:
TF1's MonitoredTrainingSession writing into checkpoint_dir, a checkpoint path taken from one key of a config
dict, the framework's own idiom in the fix, evaluation data made per rank by any partition step 3 knows,
averaging through helpers, methods and a meter's stored (sum, count) pair. Each broken script is flagged on
its step, its correct twin on none. Nothing here imports a framework."""
import textwrap

import pytest

from hvdkit.check import FLAGGED, MISSING, WRONG
from hvdkit.check.static import analyze


def _analyze(tmp_path, src, name="train.py"):
    path = tmp_path / name
    path.write_text(textwrap.dedent(src))
    findings, notes, _ = analyze(str(path))
    return findings, notes


def _flagged(findings):
    return {n: f.evidence for n, f in findings.items() if f.verdict in FLAGGED}


# --- step 7: TF1's MonitoredTrainingSession ------------------------------------------------------------
TF1 = """
    import numpy as np
    import tensorflow.compat.v1 as tf
    import horovod.tensorflow as hvd

    tf.disable_v2_behavior()
    hvd.init()
    LOGDIR = "./logs"
    rng = np.random.default_rng(5)
    x_all = rng.random((1000, 8)).astype(np.float32)
    x_train = x_all[hvd.rank()::hvd.size()]
    x = tf.placeholder(tf.float32, [None, 8])
    recon = tf.layers.dense(tf.layers.dense(x, 4, activation=tf.nn.relu), 8)
    loss = tf.reduce_mean(tf.square(recon - x))
    avg_loss = hvd.allreduce(loss)
    opt = hvd.DistributedOptimizer(tf.train.AdamOptimizer(0.001 * hvd.size()))
    global_step = tf.train.get_or_create_global_step()
    train_op = opt.minimize(loss, global_step=global_step)
    hooks = [hvd.BroadcastGlobalVariablesHook(0), tf.train.StopAtStepHook(last_step=2000 // hvd.size()),
             tf.train.LoggingTensorHook(tensors={{"step": global_step, "loss": avg_loss}}, every_n_iter=100)]
    config = tf.ConfigProto()
    config.gpu_options.visible_device_list = str(hvd.local_rank())
    {where}
    with tf.train.MonitoredTrainingSession(checkpoint_dir={given}, hooks=hooks, config=config,
                                           save_checkpoint_steps=500) as sess:
        while not sess.should_stop():
            sess.run(train_op, feed_dict={{x: x_train[np.random.randint(0, len(x_train), 32)]}})
"""


@pytest.mark.parametrize("where,given", [
    ("checkpoint_dir = LOGDIR if hvd.rank() == 0 else None", "checkpoint_dir"),  # Horovod's TF1 idiom
    ("if hvd.rank() == 0:\n        checkpoint_dir = LOGDIR\n    else:\n        checkpoint_dir = None",
     "checkpoint_dir"),
    ("", "LOGDIR if hvd.rank() == 0 else None"),
])
def test_monitored_session_writes_checkpoints_into_checkpoint_dir(tmp_path, where, given):
    findings, _ = _analyze(tmp_path, TF1.format(where="checkpoint_dir = LOGDIR", given="checkpoint_dir"))
    assert findings[7].verdict == WRONG, findings[7].evidence  # every rank's session writes into the same dir
    assert list(_flagged(findings)) == [7], _flagged(findings)
    findings, _ = _analyze(tmp_path, TF1.format(where=where, given=given))
    assert _flagged(findings) == {}


# --- Keras fit: the checkpoint path from a config, the fix text, the validation note ----------------------
KERAS = """
    import json
    import os

    import numpy as np
    import tensorflow as tf
    import horovod.tensorflow.keras as hvd

    hvd.init()
    gpus = tf.config.list_physical_devices("GPU")
    if gpus:
        tf.config.set_visible_devices(gpus[hvd.local_rank()], "GPU")
    cfg = dict(data="data/rows.npz", plots="plots/loss.png", ckpt_dir="checkpoints", lr=0.002)
    rng = np.random.default_rng(11)
    rows = rng.random((600, 5)).astype("float32")
    labels = (rows[:, 0] > rows[:, 1]).astype("int64")
    x_tr, y_tr = rows[:500], labels[:500]
    x_va, y_va = rows[500:], labels[500:]


    def shard(*arrays):
        return [a[hvd.rank()::hvd.size()] for a in arrays]


    x_tr, y_tr = shard(x_tr, y_tr)
    {val_split}
    model = tf.keras.Sequential([tf.keras.layers.Dense(8, activation="relu"), tf.keras.layers.Dense(2)])
    opt = tf.keras.optimizers.RMSprop(learning_rate=cfg["lr"] * hvd.size())
    model.compile(optimizer=hvd.DistributedOptimizer(opt),
                  loss=tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True), metrics=["accuracy"])
    callbacks = [hvd.callbacks.BroadcastGlobalVariablesCallback(0), hvd.callbacks.MetricAverageCallback()]
    if hvd.rank() == 0:
        {save}
    model.fit(x_tr, y_tr, batch_size=20, epochs=3, callbacks=callbacks, validation_data=(x_va, y_va),
              verbose=1 if hvd.rank() == 0 else 0)
"""
VAL_SHARD = "x_va, y_va = shard(x_va, y_va)"
CKPT_SAVE = 'callbacks.append(tf.keras.callbacks.ModelCheckpoint(os.path.join(cfg["ckpt_dir"], "ep{epoch}.keras")))'


@pytest.mark.parametrize("save", [
    CKPT_SAVE,  # the dict's other strings (.npz, .png) say nothing of this key's value
    'paths = json.load(open("paths.json"))\n        '
    'callbacks.append(tf.keras.callbacks.ModelCheckpoint(paths["ckpt"]))',  # a key the source cannot see
])
def test_checkpoint_path_from_a_config_key_is_judged_by_that_key_only(tmp_path, save):
    # An object the code does not identify (not a model, not a checkpoint) is judged by its path.
    plots = 'tf.keras.utils.array_to_img(rows[:4, :, None]).save(os.path.join(cfg["plots"]))'
    findings, _ = _analyze(tmp_path, KERAS.format(val_split=VAL_SHARD, save=plots))
    assert findings[7].verdict == MISSING, findings[7].evidence  # the key's own value is an image
    assert list(_flagged(findings)) == [7], _flagged(findings)
    findings, _ = _analyze(tmp_path, KERAS.format(val_split=VAL_SHARD, save=save))
    assert _flagged(findings) == {}


def test_missing_checkpoint_fix_is_the_scripts_framework_idiom(tmp_path):
    findings, _ = _analyze(tmp_path, KERAS.format(val_split=VAL_SHARD, save="pass"))
    assert findings[7].verdict == MISSING and "torch.save" not in findings[7].fix
    assert "ModelCheckpoint" in findings[7].fix and "hvd.rank() == 0" in findings[7].fix
    torch = TORCH.format(helpers=HELPER_VALIDATE.format(ret='avg(correct / total, "val_acc")'), epoch_end=EPOCH_END)
    findings, _ = _analyze(tmp_path, torch.replace("torch.save(", "print(net, "))
    assert findings[7].verdict == MISSING and "torch.save" in findings[7].fix
    findings, _ = _analyze(tmp_path, KERAS.format(val_split=VAL_SHARD, save=CKPT_SAVE))
    assert _flagged(findings) == {}


def test_whole_validation_note_only_when_the_validation_data_is_not_per_rank(tmp_path):
    findings, notes = _analyze(tmp_path, KERAS.format(val_split="", save=CKPT_SAVE))
    note = [n for n in notes if "validation set" in n]
    assert _flagged(findings) == {} and note, notes
    # validation_steps // size would have every rank read the same first batches of an unshuffled set
    assert "validation_steps" not in note[0] and ".shard(hvd.size(), hvd.rank())" in note[0]
    assert "MetricAverageCallback" in note[0]
    findings, notes = _analyze(tmp_path, KERAS.format(val_split=VAL_SHARD, save=CKPT_SAVE))
    assert _flagged(findings) == {} and not [n for n in notes if "validation set" in n], notes


# --- step 8: evaluation data per rank through a partition step 3 recognises -----------------------------
# (the loader is given this rank's split: only the split's construction says it is per rank)
TF_LOOP = """
    import tensorflow as tf
    import tensorflow_datasets as tfds
    import horovod.tensorflow as hvd

    hvd.init()
    gpus = tf.config.list_physical_devices("GPU")
    if gpus:
        tf.config.set_visible_devices(gpus[hvd.local_rank()], "GPU")
    train_split = tfds.even_splits("train", n=hvd.size())[hvd.rank()]
    test_split = tfds.even_splits("test", n=hvd.size())[hvd.rank()]
    train_ds = tfds.load("mnist", split=train_split, as_supervised=True).shuffle(256).batch(32)
    test_ds = tfds.load("mnist", split=test_split, as_supervised=True).batch(64)
    clf = tf.keras.Sequential([tf.keras.layers.Dense(12, activation="relu"), tf.keras.layers.Dense(2)])
    adam = tf.keras.optimizers.Adam(learning_rate=0.001 * hvd.size())
    xent = tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True)
    test_acc = tf.keras.metrics.SparseCategoricalAccuracy()
    ckpt = tf.train.Checkpoint(model=clf, optimizer=adam)
    step = 0
    for epoch in range(2):
        for x, y in train_ds:
            with tf.GradientTape() as tape:
                loss = xent(y, clf(x, training=True))
            tape = hvd.DistributedGradientTape(tape)
            grads = tape.gradient(loss, clf.trainable_variables)
            adam.apply_gradients(zip(grads, clf.trainable_variables))
            if step == 0:
                hvd.broadcast_variables(clf.variables, root_rank=0)
                hvd.broadcast_variables(adam.variables, root_rank=0)
            step += 1
        for x, y in test_ds:
            test_acc.update_state(y, clf(x, training=False))
        acc = {acc}
        if hvd.rank() == 0:
            print("epoch", epoch, "test_acc", float(acc))
            ckpt.write("clf")
        test_acc.reset_states()
"""


def test_evaluation_split_by_the_rank_is_per_rank(tmp_path):
    findings, _ = _analyze(tmp_path, TF_LOOP.format(acc="test_acc.result()"))
    assert findings[8].verdict == MISSING, findings[8].evidence  # rank 0's 1/size of the test set as the job's
    assert list(_flagged(findings)) == [8], _flagged(findings)
    findings, _ = _analyze(tmp_path, TF_LOOP.format(acc="hvd.allreduce(test_acc.result())"))
    assert _flagged(findings) == {}


# --- step 8: averaging through helpers, methods, a meter's stored pair ----------------------------------
TORCH = """
    import numpy as np
    import torch
    import horovod.torch as hvd
    from torch.utils.data import DataLoader, TensorDataset
    from torch.utils.data.distributed import DistributedSampler

    hvd.init()
    torch.set_num_threads(1)
    rng = np.random.default_rng(7)
    x = torch.from_numpy(rng.normal(size=(256, 4)).astype("float32"))
    y = (x.sum(1) > 0).long()
    train_set, val_set = TensorDataset(x[:200], y[:200]), TensorDataset(x[200:], y[200:])
    train_sampler = DistributedSampler(train_set, num_replicas=hvd.size(), rank=hvd.rank())
    val_sampler = DistributedSampler(val_set, num_replicas=hvd.size(), rank=hvd.rank(), shuffle=False)
    train_loader = DataLoader(train_set, batch_size=16, sampler=train_sampler)
    val_loader = DataLoader(val_set, batch_size=16, sampler=val_sampler)
    net = torch.nn.Linear(4, 2)
    sgd = torch.optim.SGD(net.parameters(), lr=0.01 * hvd.size())
    sgd = hvd.DistributedOptimizer(sgd, named_parameters=net.named_parameters())
    hvd.broadcast_parameters(net.state_dict(), root_rank=0)
    hvd.broadcast_optimizer_state(sgd, root_rank=0)
    {helpers}

    for epoch in range(3):
        train_sampler.set_epoch(epoch)
        for inputs, targets in train_loader:
            sgd.zero_grad()
            torch.nn.functional.cross_entropy(net(inputs), targets).backward()
            sgd.step()
        {epoch_end}
"""
EPOCH_END = """val_acc = validate()
        if hvd.rank() == 0:
            print(f"epoch {epoch} val_acc {val_acc:.3f}")
            torch.save(net.state_dict(), f"net-{epoch}.pt")"""
COUNT = """
    def count_correct():
        correct, total = 0, 0
        with torch.no_grad():
            for inputs, targets in val_loader:
                correct += (net(inputs).argmax(1) == targets).sum().item()
                total += len(targets)
        return correct, total
"""
HELPER_VALIDATE = COUNT + """

    def avg(value, name):
        return hvd.allreduce(torch.tensor(value), name=name).item()


    def validate():
        correct, total = count_correct()
        return {ret}
"""
METHOD = COUNT + """

    class Validator:
        def test(self):
            correct, total = count_correct()
            {test}

        def report(self, epoch):
            acc = self.test()
            if hvd.rank() == 0:
                print(f"epoch {{epoch}} val_acc {{acc:.3f}}")
                torch.save(net.state_dict(), f"net-{{epoch}}.pt")
"""
METER = """
    class AverageMeter:
        def __init__(self):
            self.sum, self.count = 0.0, 0

        def update(self, value, n=1):
            self.sum += value * n
            self.count += n

        def all_reduce(self):
            t = hvd.allreduce(torch.tensor([self.sum, self.count], dtype=torch.float64), op=hvd.Sum)
            self.sum, self.count = t[0].item(), int(t[1].item())

        @property
        def avg(self):
            return {avg}


    def validate():
        meter = AverageMeter()
        with torch.no_grad():
            for inputs, targets in val_loader:
                meter.update((net(inputs).argmax(1) == targets).float().mean().item(), len(targets))
        meter.all_reduce()
        return meter.avg
"""


@pytest.mark.parametrize("template,epoch_end,broken,verdict,correct", [
    # validate() returns avg(...), whose allreduce is two calls down from the report
    (HELPER_VALIDATE, EPOCH_END, dict(ret="correct / total"), MISSING, dict(ret='avg(correct / total, "val_acc")')),
    # self.test() allreduces the (correct, total) pair inside the method
    (METHOD, "Validator().report(epoch)", dict(test="return correct / total"), MISSING,
     dict(test="stats = hvd.allreduce(torch.tensor([correct, total]), op=hvd.Sum)\n"
               "            return (stats[0] / stats[1]).item()")),
    # the summed pair is stored in attributes and divided in a property: an average; undivided, a sum
    (METER, EPOCH_END, dict(avg="self.sum"), WRONG, dict(avg="self.sum / max(self.count, 1)")),
], ids=["helper_calling_a_helper", "method_through_self", "meter_stored_pair"])
def test_metric_averaged_through_local_functions_methods_and_stored_pairs(tmp_path, template, epoch_end, broken,
                                                                          verdict, correct):
    findings, _ = _analyze(tmp_path, TORCH.format(helpers=template.format(**broken), epoch_end=epoch_end))
    assert findings[8].verdict == verdict, findings[8].evidence
    assert list(_flagged(findings)) == [8], _flagged(findings)
    findings, _ = _analyze(tmp_path, TORCH.format(helpers=template.format(**correct), epoch_end=epoch_end))
    assert _flagged(findings) == {}
