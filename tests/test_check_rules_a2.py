"""`hvdkit check`, static pass, steps 1-4 (issue 39): evidence before verdict when the code that could do a step
cannot be read, Horovod taken from a module of the project that is not there, and what a file read per rank
says. Each pair is written here from scratch as real code is (a flat script whose helper package is absent,
flags with defaults); each test fails with its rule taken back (the commit that adds it says so)."""
import textwrap

import pytest

from hvdkit.check import FLAGGED, UNKNOWN, CheckInputError
from hvdkit.check.static import analyze


def check(tmp_path, src, name="train.py", files=None):
    """Findings of a script written into tmp_path (with the project's other files, if any)."""
    for rel, text in (files or {}).items():
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(textwrap.dedent(text))
    path = tmp_path / name
    path.write_text(textwrap.dedent(src))
    findings, _, _ = analyze(str(path), root=str(tmp_path) if files else None)
    return findings


def flagged(findings):
    return {n for n, f in findings.items() if f.verdict in FLAGGED}


# A Keras script whose Horovod set-up, data and callbacks live in its own package, absent here (the script
# copied alone): nothing it shows does steps 1-4, and nothing it shows says they are missing.
SETUP_IN_HELPERS = '''
import json

from tensorflow import keras
import horovod.tensorflow.keras as hvd

from galaxy.data import make_datasets
from galaxy.setup import setup_horovod


def main():
    with open("config.json") as f:
        cfg = json.load(f)
    rank, world = setup_horovod()
    train_ds, steps = make_datasets(cfg, rank, world)
    model = keras.Sequential([keras.layers.Dense(10)])
    model.compile(optimizer=hvd.DistributedOptimizer(keras.optimizers.Adam(cfg["lr"] * world)), loss="mse")
    model.fit(train_ds, steps_per_epoch=steps, epochs=3,
              callbacks=[hvd.callbacks.BroadcastGlobalVariablesCallback(0)], verbose=hvd.rank() == 0)


if __name__ == "__main__":
    main()
'''

# The same training where the script sets Horovod up itself: a helper that is told neither the rank nor the
# size cannot shard, and `progress(hvd.rank(), ...)` is handed a rank but no optimizer: it cannot scale an LR.
SETUP_IN_SCRIPT = '''
import json

import tensorflow as tf
from tensorflow import keras
import horovod.tensorflow.keras as hvd

from galaxy.data import make_dataset
from galaxy.logs import progress


def main():
    hvd.init()
    gpus = tf.config.list_physical_devices("GPU")
    if gpus:
        tf.config.set_visible_devices(gpus[hvd.local_rank()], "GPU")
    with open("config.json") as f:
        cfg = json.load(f)
    train_ds = make_dataset(cfg["train_dir"], cfg["batch_size"])
    progress(hvd.rank(), "data ready")
    model = keras.Sequential([keras.layers.Dense(10)])
    model.compile(optimizer=hvd.DistributedOptimizer(keras.optimizers.Adam(cfg["lr"])), loss="mse")
    model.fit(train_ds, epochs=3, callbacks=[hvd.callbacks.BroadcastGlobalVariablesCallback(0)],
              verbose=hvd.rank() == 0)


if __name__ == "__main__":
    main()
'''


def test_steps_done_in_an_absent_helper_package_cannot_be_told(tmp_path):
    got = check(tmp_path, SETUP_IN_HELPERS)
    assert {n: got[n].verdict for n in (1, 2, 3, 4)} == {1: UNKNOWN, 2: UNKNOWN, 3: UNKNOWN, 4: UNKNOWN}
    assert "setup_horovod(...)" in got[1].evidence and "make_datasets(...)" in got[3].evidence
    assert "setup_horovod(...)" in got[4].evidence  # world, a factor of the LR, comes from there


def test_a_helper_not_told_the_rank_or_size_cannot_shard_and_a_logger_cannot_scale_the_lr(tmp_path):
    got = check(tmp_path, SETUP_IN_SCRIPT)
    assert {1, 2} - flagged(got) == {1, 2}
    assert got[3].verdict == "missing" and got[4].verdict == "missing", (got[3].evidence, got[4].evidence)


# Horovod imported from the project's own module (`from sspred.dist import hvd`), which is not there.
HVD_FROM_OWN_MODULE = '''
import torch
import torch.nn.functional as F

from sspred.data import load_train
from sspred.dist import hvd, setup


def main():
    device = setup()
    loader = load_train(rank=hvd.rank(), world_size=hvd.size())
    model = torch.nn.Linear(8, 2).to(device)
    opt = torch.optim.SGD(model.parameters(), lr=0.01 * hvd.size())
    opt = hvd.DistributedOptimizer(opt, named_parameters=model.named_parameters())
    hvd.broadcast_parameters(model.state_dict(), root_rank=0)
    for x, y in loader:
        opt.zero_grad()
        F.cross_entropy(model(x.to(device)), y.to(device)).backward()
        opt.step()


main()
'''

# A name from an absent module used only as rank and size: nothing says it is Horovod's.
COMM_FROM_OWN_MODULE = '''
import torch

from sspred.data import load_train
from sspred.dist import comm

loader = load_train(rank=comm.rank(), world_size=comm.size())
model = torch.nn.Linear(8, 2)
opt = torch.optim.SGD(model.parameters(), lr=0.01 * comm.size())
for x, y in loader:
    opt.zero_grad()
    torch.nn.functional.cross_entropy(model(x), y).backward()
    opt.step()
'''


def test_horovod_imported_from_an_absent_module_of_the_project_is_read_by_its_use(tmp_path):
    got = check(tmp_path, HVD_FROM_OWN_MODULE)
    assert got[5].verdict == "ok" and got[6].verdict == "ok" and got[4].verdict == "ok"
    assert got[1].verdict == UNKNOWN and "setup(...)" in got[1].evidence  # the module Horovod comes from


def test_a_name_from_an_absent_module_used_only_as_rank_and_size_is_not_horovod(tmp_path):
    # Not read as Horovod's module (no verdicts), and not called "not a Horovod script" either: the module
    # that is not there may be Horovod's, or call it.
    with pytest.raises(CheckInputError, match="cannot tell: it imports no Horovod module, and its own module "
                                              "sspred is not in the project"):
        check(tmp_path, COMM_FROM_OWN_MODULE)


# Data read from one file per rank: by the global rank a partition; by the local rank, the same files on every
# node; a folder the launcher gives each node, looked up by a key that holds the local rank, is the node's own.
PER_RANK_FILE = '''
import os

import numpy as np
import tensorflow as tf
import horovod.tensorflow.keras as hvd

hvd.init()
gpus = tf.config.list_physical_devices("GPU")
if gpus:
    tf.config.set_visible_devices(gpus[hvd.local_rank()], "GPU")
#DATA#
model = tf.keras.Sequential([tf.keras.layers.Dense(1)])
model.compile(optimizer=hvd.DistributedOptimizer(tf.keras.optimizers.SGD(0.01 * hvd.size())), loss="mse")
model.fit(x, y, epochs=2, callbacks=[hvd.callbacks.BroadcastGlobalVariablesCallback(0)],
          verbose=hvd.rank() == 0)
'''
BY_RANK = 'part = np.load(f"data/part-{hvd.rank()}.npz")\nx, y = part["x"], part["y"]\n'
BY_LOCAL_RANK = 'part = np.load("data/part-" + str(hvd.local_rank()) + ".npz")\nx, y = part["x"], part["y"]\n'
NODE_FOLDER = ('folders = {f"train_{i}": os.environ["SM_CHANNEL_" + str(i)] for i in range(8)}\n'
               'part = np.load(os.path.join(folders[f"train_{hvd.local_rank()}"], "part.npz"))\n'
               'x, y = part["x"], part["y"]\n')


BY_RANK_IN_HELPER = ('import h5py\n\n\ndef fetch(path):\n    with h5py.File(path, "r") as fh:\n'
                     '        return fh["x"][...], fh["y"][...]\n\n\n'
                     'x, y = fetch(os.path.join("data", "part_%03d.h5" % hvd.rank()))\n')
# A checkpoint loaded onto the local rank's GPU: the device string holds the local rank, the file does not.
RESUME_ON_LOCAL_GPU = ('import torch\n\nx, y = np.load("data/all.npz")["x"], np.load("data/all.npz")["y"]\n'
                       'x = x[hvd.rank()::hvd.size()]\ny = y[hvd.rank()::hvd.size()]\n'
                       'state = torch.load("ckpt.pt", map_location=f"cuda:{hvd.local_rank()}")\n'
                       'start = hvd.broadcast_object(state["epoch"], root_rank=0)\n')


def test_a_file_named_by_the_local_rank_is_the_same_part_on_every_node(tmp_path):
    got = check(tmp_path, PER_RANK_FILE.replace("#DATA#", BY_LOCAL_RANK))
    assert got[3].verdict == "wrong" and "local_rank" in got[3].evidence


def test_a_file_named_by_the_rank_or_a_node_folder_is_no_local_rank_fault(tmp_path):
    assert check(tmp_path, PER_RANK_FILE.replace("#DATA#", BY_RANK))[3].verdict == "ok"
    node = check(tmp_path, PER_RANK_FILE.replace("#DATA#", NODE_FOLDER))[3]
    assert node.verdict != "wrong", node.evidence
    assert check(tmp_path, PER_RANK_FILE.replace("#DATA#", BY_RANK_IN_HELPER))[3].verdict == "ok"
    resume = PER_RANK_FILE.replace("#DATA#", RESUME_ON_LOCAL_GPU).replace(
        "model.fit(x, y, epochs=2,", "for epoch in range(start, 2):\n    model.fit(x, y, epochs=1,").replace(
        "          verbose=", "              verbose=")
    assert check(tmp_path, resume)[3].verdict == "ok"


# Horovod's idiom (steps divided by size) with the data made by an absent helper told the rank and the size:
# the helper may partition it, so the per-rank shuffle the idiom needs is no evidence of a fault.
DIVIDED = '''
import tensorflow as tf
from tensorflow import keras
import horovod.tensorflow.keras as hvd

from forecast.windows import load_windows#IMPORT#


def main(seed=7):
    hvd.init()
    gpus = tf.config.list_physical_devices("GPU")
    if gpus:
        tf.config.set_visible_devices(gpus[hvd.local_rank()], "GPU")
    keras.utils.set_random_seed(seed)
    x, y = load_windows("load.npz")
#DATA#
    steps = len(x) // (32 * hvd.size())
    model = keras.Sequential([keras.layers.Dense(24)])
    model.compile(optimizer=hvd.DistributedOptimizer(keras.optimizers.Adam(1e-3 * hvd.size())), loss="mse")
    model.fit(ds, steps_per_epoch=steps, epochs=5, callbacks=[hvd.callbacks.BroadcastGlobalVariablesCallback(0)],
              verbose=hvd.rank() == 0)


main()
'''


def test_divided_steps_over_data_a_helper_got_rank_and_size_for_cannot_be_told(tmp_path):
    src = DIVIDED.replace("#IMPORT#", ", train_dataset").replace(
        "#DATA#", "    ds = train_dataset(x, y, 32, hvd.rank(), hvd.size(), seed)")
    got = check(tmp_path, src)
    assert got[3].verdict == UNKNOWN and "train_dataset(...)" in got[3].evidence


def test_divided_steps_over_data_shuffled_alike_on_every_rank_is_wrong(tmp_path):
    src = DIVIDED.replace("#IMPORT#", "").replace(
        "#DATA#", "    ds = tf.data.Dataset.from_tensor_slices((x, y)).shuffle(1000, seed=seed).repeat().batch(32)")
    assert check(tmp_path, src)[3].verdict == "wrong"


# An LR set by hand in the training loop. Set at decay milestones only, the LR the optimizer is built with trains
# until the first one (and, unscaled, the whole run when the run ends first); set each epoch, or on both sides
# of a warmup's branch (its length read from a file), it replaces the built LR from the first step.
HAND_SCHEDULE = '''
import argparse
import json

import torch
import horovod.torch as hvd

parser = argparse.ArgumentParser()
parser.add_argument("--base-lr", type=float, default=0.01)
parser.add_argument("--epochs", type=int, default=90)
args = parser.parse_args()
hvd.init()
torch.set_num_threads(1)
data = torch.randn(4096, 8)
sampler = torch.utils.data.distributed.DistributedSampler(data, num_replicas=hvd.size(), rank=hvd.rank())
loader = torch.utils.data.DataLoader(data, batch_size=32, sampler=sampler)
model = torch.nn.Linear(8, 1)
optimizer = torch.optim.SGD(model.parameters(), lr=args.base_lr)
optimizer = hvd.DistributedOptimizer(optimizer, named_parameters=model.named_parameters())
hvd.broadcast_parameters(model.state_dict(), root_rank=0)
with open("schedule.json") as fh:
    milestones, warmup_steps = json.load(fh)
done = 0
for epoch in range(args.epochs):
    sampler.set_epoch(epoch)
#SET#
    for x in loader:
        done += 1
        optimizer.zero_grad()
        model(x).pow(2).mean().backward()
        optimizer.step()
'''
AT_MILESTONES = '''    for k, step in enumerate(milestones):
        if done >= step:
            for g in optimizer.param_groups:
                g["lr"] = args.base_lr * hvd.size() * 0.1 ** (k + 1)
'''
EACH_EPOCH = '''    for g in optimizer.param_groups:
        g["lr"] = args.base_lr * hvd.size() * 0.1 ** sum(done >= m for m in milestones)
'''
WARMUP_BRANCHES = '''    if done < warmup_steps:
        for g in optimizer.param_groups:
            g["lr"] = args.base_lr * hvd.size() * (done + 1) / warmup_steps
    else:
        for g in optimizer.param_groups:
            g["lr"] = args.base_lr * hvd.size()
'''


def test_an_lr_scaled_only_at_decay_milestones_leaves_the_built_lr_unscaled(tmp_path):
    got = check(tmp_path, HAND_SCHEDULE.replace("#SET#\n", AT_MILESTONES))[4]
    assert got.verdict == "missing" and "only when done >= step" in got.evidence, got.evidence


def test_an_lr_set_scaled_from_the_first_step_replaces_the_built_one(tmp_path):
    for setter in (EACH_EPOCH, WARMUP_BRANCHES):
        got = check(tmp_path, HAND_SCHEDULE.replace("#SET#\n", setter))[4]
        assert got.verdict == "ok", (setter, got.evidence)


# A package whose Horovod calls live in one module (`get_world_size()` returns hvd.size()), called from the data
# module: the split is given the size and the rank through the project's own functions, or the local rank.
DIST_HELPERS = {"proj/__init__.py": "", "proj/dist.py": '''
    import horovod.torch as hvd


    def setup():
        hvd.init()
        torch_threads()
        return hvd.rank(), hvd.size()


    def torch_threads():
        import torch
        torch.set_num_threads(1)


    def get_rank():
        return hvd.#RANK#()


    def get_world_size():
        return hvd.size()
    ''', "proj/data.py": '''
    import torch
    from torch.utils.data import DataLoader, DistributedSampler

    from .dist import get_rank, get_world_size


    def build_loader(data):
        sampler = DistributedSampler(data, num_replicas=get_world_size(), rank=get_rank())
        return sampler, DataLoader(data, batch_size=32, sampler=sampler)
    '''}
DIST_TRAIN = '''
import torch
import horovod.torch as hvd

from proj.data import build_loader
from proj.dist import setup

rank, world = setup()
sampler, loader = build_loader(torch.randn(4096, 8))
model = torch.nn.Linear(8, 1)
optimizer = hvd.DistributedOptimizer(torch.optim.SGD(model.parameters(), lr=0.01 * world),
                                     named_parameters=model.named_parameters())
hvd.broadcast_parameters(model.state_dict(), root_rank=0)
for epoch in range(3):
    sampler.set_epoch(epoch)
    for x in loader:
        optimizer.zero_grad()
        model(x).pow(2).mean().backward()
        optimizer.step()
'''


def test_size_and_rank_returned_by_the_projects_own_functions_are_seen(tmp_path):
    files = {k: v.replace("#RANK#", "rank") for k, v in DIST_HELPERS.items()}
    got = check(tmp_path, DIST_TRAIN, files=files)
    assert got[3].verdict == "ok", got[3].evidence
    assert got[4].verdict == "ok", got[4].evidence


def test_a_split_by_the_local_rank_from_the_projects_helper_is_wrong(tmp_path):
    files = {k: v.replace("#RANK#", "local_rank") for k, v in DIST_HELPERS.items()}
    got = check(tmp_path, DIST_TRAIN, files=files)[3]
    assert got.verdict == "wrong" and "local_rank" in got.evidence, got.evidence
