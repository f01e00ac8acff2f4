"""`hvdkit check`, static pass: steps 1, 2, 3 and 8 judged by what the code computes on real-looking projects
(issue 39: precision and recall on projects never seen).

Each pair is written from scratch into tmp_path, in the shapes real training code takes: a launcher's local
rank read from the environment by a helper before the framework is imported, device helpers in a
`dist_utils` module, a data module with its own `list_files`, a Trainer in a package, TF1 sessions. The
correct twin is not flagged on the step (or is "cannot tell" where the step's work is in code that is not
there); the broken twin is flagged on it, by the line that makes it wrong.
"""
import textwrap

from hvdkit.check import FLAGGED, MISSING, OK, UNKNOWN, WRONG
from hvdkit.check.static import analyze


def write(tmp_path, files):
    """Write {relative path: source} under tmp_path (a project with a pyproject.toml at its root)."""
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'demo'\n")
    for rel, source in files.items():
        path = tmp_path / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(source).lstrip("\n"))
    return tmp_path


def verdict(tmp_path, files, step, script="train.py"):
    """The Finding of `step` for the project's script, read inside the project."""
    root = write(tmp_path, files)
    findings, _, _ = analyze(str(root / script), root=str(root))
    return findings[step]


# --- step 2: the launcher's local rank, read before the framework sees the GPUs -------------------------------
ENV_HELPER = '''
    """The launcher's ranks, read from the environment before any framework initialises CUDA."""
    import os


    def node_rank_from_env():
        for var in ({keys}):
            if var in os.environ:
                return int(os.environ[var])
        return 0
'''

ENV_SCRIPT = '''
    """Downscaling CNN, TF2 custom loop.  mpirun -np 8 -npernode 4 python train.py"""
    import os

    from launch.env import node_rank_from_env

    NODE_RANK = node_rank_from_env()
    os.environ["CUDA_VISIBLE_DEVICES"] = str(NODE_RANK)

    import numpy as np  # noqa: E402
    import tensorflow as tf  # noqa: E402
    import horovod.tensorflow as hvd  # noqa: E402


    def main():
        hvd.init()
        if hvd.local_rank() != NODE_RANK:
            raise RuntimeError(f"launcher rank {NODE_RANK} != Horovod local rank {hvd.local_rank()}")
        x = np.load("data.npz")["x"].astype(np.float32)
        per_rank = len(x) // hvd.size()
        part = x[hvd.rank() * per_rank:(hvd.rank() + 1) * per_rank]
        ds = tf.data.Dataset.from_tensor_slices((part, part)).shuffle(1000).batch(32)
        model = tf.keras.Sequential([tf.keras.layers.Dense(8), tf.keras.layers.Dense(1)])
        opt = tf.keras.optimizers.Adam(1e-3 * hvd.size())
        first = True
        for epoch in range(10):
            sq, count = 0.0, 0.0
            for xb, yb in ds:
                with tf.GradientTape() as tape:
                    loss = tf.reduce_mean(tf.square(model(xb) - yb))
                tape = hvd.DistributedGradientTape(tape)
                grads = tape.gradient(loss, model.trainable_variables)
                opt.apply_gradients(zip(grads, model.trainable_variables))
                if first:
                    hvd.broadcast_variables(model.variables, root_rank=0)
                    hvd.broadcast_variables(opt.variables, root_rank=0)
                    first = False
                sq += float(tf.reduce_sum(tf.square(model(xb) - yb)))
                count += float(tf.size(yb))
            totals = hvd.allreduce(tf.constant([sq, count], dtype=tf.float64), op=hvd.Sum)
            if hvd.rank() == 0:
                print(f"epoch {epoch}: rmse {float(tf.sqrt(totals[0] / totals[1])):.3f}")
                model.save_weights("ckpt.weights.h5")


    if __name__ == "__main__":
        main()
'''


def env_project(keys):
    return {"launch/__init__.py": "", "launch/env.py": ENV_HELPER.format(keys=keys), "train.py": ENV_SCRIPT}


def test_gpu_from_the_launchers_local_rank_in_a_helper_is_pinned(tmp_path):
    keys = '"OMPI_COMM_WORLD_LOCAL_RANK", "MV2_COMM_WORLD_LOCAL_RANK", "SLURM_LOCALID"'
    found = verdict(tmp_path, env_project(keys), 2)
    assert found.verdict == OK, found.evidence


def test_gpu_from_the_launchers_global_rank_in_a_helper_is_wrong(tmp_path):
    keys = '"OMPI_COMM_WORLD_RANK", "MV2_COMM_WORLD_RANK", "SLURM_PROCID"'
    found = verdict(tmp_path, env_project(keys), 2)
    assert found.verdict == WRONG and "global rank" in found.evidence, found.evidence


# --- step 8: a check that raises is no rank-dependent path around the average --------------------------------
def test_average_after_a_raising_check_of_the_local_rank_is_on_every_rank(tmp_path):
    keys = '"OMPI_COMM_WORLD_LOCAL_RANK", "SLURM_LOCALID"'
    found = verdict(tmp_path, env_project(keys), 8)
    assert found.verdict == OK, found.evidence


def test_average_after_an_early_return_on_other_ranks_hangs(tmp_path):
    keys = '"OMPI_COMM_WORLD_LOCAL_RANK", "SLURM_LOCALID"'
    files = env_project(keys)
    files["train.py"] = files["train.py"].replace(
        'raise RuntimeError(f"launcher rank {NODE_RANK} != Horovod local rank {hvd.local_rank()}")', "return")
    found = verdict(tmp_path, files, 8)
    assert found.verdict == WRONG and "some ranks only" in found.evidence, found.evidence


# --- step 2: a device made from what the project's helper returns -----------------------------------------------
DIST_UTILS = '''
    import horovod.torch as hvd


    def init():
        hvd.init()


    def rank():
        return hvd.rank()


    def local_rank():
        return hvd.local_rank()


    def world_size():
        return hvd.size()
'''

TORCH_SCRIPT = '''
    import torch
    import torch.nn as nn
    import horovod.torch as hvd
    from torch.utils.data import DataLoader, TensorDataset
    from torch.utils.data.distributed import DistributedSampler

    import dist_utils


    def main():
        dist_utils.init()
        device = torch.device("cuda", dist_utils.{which}()) if torch.cuda.is_available() else torch.device("cpu")
        data = TensorDataset(torch.load("x.pt"), torch.load("y.pt"))
        sampler = DistributedSampler(data, num_replicas=dist_utils.world_size(), rank=dist_utils.rank())
        loader = DataLoader(data, batch_size=64, sampler=sampler)
        model = nn.Linear(20, 2).to(device)
        opt = torch.optim.SGD(model.parameters(), lr=0.01 * dist_utils.world_size())
        opt = hvd.DistributedOptimizer(opt, named_parameters=model.named_parameters())
        hvd.broadcast_parameters(model.state_dict(), root_rank=0)
        hvd.broadcast_optimizer_state(opt, root_rank=0)
        for epoch in range(5):
            sampler.set_epoch(epoch)
            for x, y in loader:
                x, y = x.to(device), y.to(device)
                opt.zero_grad()
                loss = nn.functional.cross_entropy(model(x), y)
                loss.backward()
                opt.step()
            if dist_utils.rank() == 0:
                torch.save(model.state_dict(), "model.pt")


    if __name__ == "__main__":
        main()
'''


def test_device_made_from_the_helpers_local_rank_is_pinned(tmp_path):
    files = {"dist_utils.py": DIST_UTILS, "train.py": TORCH_SCRIPT.replace("{which}", "local_rank")}
    found = verdict(tmp_path, files, 2)
    assert found.verdict == OK, found.evidence


def test_device_made_from_the_helpers_global_rank_is_wrong(tmp_path):
    files = {"dist_utils.py": DIST_UTILS, "train.py": TORCH_SCRIPT.replace("{which}", "rank")}
    found = verdict(tmp_path, files, 2)
    assert found.verdict == WRONG and "global rank" in found.evidence, found.evidence


# --- step 8: a TF1 session's run() on the data fed to it is an evaluation ------------------------------------
TF1_SCRIPT = '''
    import numpy as np
    import tensorflow as tf
    import horovod.tensorflow as hvd

    v1 = tf.compat.v1


    def main():
        v1.disable_eager_execution()
        hvd.init()
        data = np.load("series.npz")
        train, valid = data["train"], data["valid"]
        train = train[hvd.rank()::hvd.size()]
        {valid_part}
        x = v1.placeholder(tf.float32, [None, 16])
        y = v1.placeholder(tf.float32, [None, 1])
        w = v1.get_variable("w", [16, 1])
        loss = tf.reduce_mean(tf.square(tf.matmul(x, w) - y))
        opt = hvd.DistributedOptimizer(v1.train.AdamOptimizer(1e-3 * hvd.size()))
        train_op = opt.minimize(loss)
        bcast = hvd.broadcast_global_variables(0)
        config = v1.ConfigProto()
        config.gpu_options.visible_device_list = str(hvd.local_rank())
        with v1.Session(config=config) as sess:
            sess.run(v1.global_variables_initializer())
            sess.run(bcast)
            for step in range(1, 10001):
                i = np.random.randint(0, len(train) - 64)
                sess.run(train_op, {x: train[i:i + 64, :16], y: train[i:i + 64, 16:]})
                if hvd.rank() == 0 and step % 1000 == 0:
                    total = 0.0
                    for j in range(0, len(valid), 256):
                        total += sess.run(loss, {x: valid[j:j + 256, :16], y: valid[j:j + 256, 16:]}) * \\
                            len(valid[j:j + 256])
                    print(f"step {step}: valid mse {total / len(valid):.4f}")
                    v1.train.Saver().save(sess, "ckpt/model")


    if __name__ == "__main__":
        main()
'''


def test_rank_0_alone_evaluating_the_whole_validation_set_in_a_session_is_exact(tmp_path):
    found = verdict(tmp_path, {"train.py": TF1_SCRIPT.replace("{valid_part}", "pass")}, 8)
    assert found.verdict == OK and "rank 0 evaluates" in found.evidence, found.evidence


def test_rank_0_evaluating_its_own_shard_in_a_session_is_not_the_jobs(tmp_path):
    part = "valid = valid[hvd.rank()::hvd.size()]"
    found = verdict(tmp_path, {"train.py": TF1_SCRIPT.replace("{valid_part}", part)}, 8)
    assert found.verdict == MISSING, found.evidence


# --- step 3: a project function is not the library function of the same name ---------------------------------
SPEECH_DATA = '''
    import os


    def list_files(root):
        """The training clips, sorted: the same list on every rank."""
        return sorted(os.path.join(root, f) for f in os.listdir(root) if f.endswith(".wav"))


    def make_dataset(files, batch_size):
        import tensorflow as tf
        return tf.data.Dataset.from_tensor_slices(files).map(lambda p: tf.io.read_file(p)).batch(batch_size)
'''

SPEECH_SCRIPT = '''
    import tensorflow as tf
    import horovod.tensorflow.keras as hvd

    from kws.data import make_dataset
    {listing}


    def main():
        hvd.init()
        gpus = tf.config.list_physical_devices("GPU")
        if gpus:
            tf.config.set_visible_devices(gpus[hvd.local_rank()], "GPU")
        files = list_files("/data/clips")
        files = files[hvd.rank()::hvd.size()]
        ds = make_dataset(files, 64)
        model = tf.keras.Sequential([tf.keras.layers.Dense(12)])
        opt = hvd.DistributedOptimizer(tf.keras.optimizers.Adam(1e-3 * hvd.size()))
        model.compile(optimizer=opt, loss="sparse_categorical_crossentropy")
        callbacks = [hvd.callbacks.BroadcastGlobalVariablesCallback(0), hvd.callbacks.MetricAverageCallback()]
        model.fit(ds, epochs=10, callbacks=callbacks, verbose=1 if hvd.rank() == 0 else 0)


    if __name__ == "__main__":
        main()
'''


def test_the_projects_own_list_files_is_no_shuffle(tmp_path):
    files = {"kws/__init__.py": "", "kws/data.py": SPEECH_DATA,
             "train.py": SPEECH_SCRIPT.replace("{listing}", "from kws.data import list_files")}
    found = verdict(tmp_path, files, 3)
    assert found.verdict == OK, found.evidence


def test_tf_datas_list_files_shuffles_before_the_partition(tmp_path):
    listing = "\n\n    def list_files(root):\n        return list(tf.data.Dataset.list_files(root + '/*.wav'))"
    files = {"kws/__init__.py": "", "kws/data.py": SPEECH_DATA, "train.py": SPEECH_SCRIPT.replace("{listing}", listing)}
    found = verdict(tmp_path, files, 3)
    assert found.verdict == WRONG and "without a common seed" in found.evidence, found.evidence


# --- step 3: what code that is not there computes is no evidence of a wrong split or a missing one -------------
SPLIT_SCRIPT = '''
    import argparse

    import torch
    import horovod.torch as hvd
    from torch.utils.data import DataLoader
    from torch.utils.data.distributed import DistributedSampler

    {imports}


    def main():
        p = argparse.ArgumentParser()
        p.add_argument("--world-size", type=int, default=1)
        p.add_argument("--rank", type=int, default=0)
        args = p.parse_args()
        hvd.init()
        torch.set_num_threads(1)
        dataset = torch.load("crops.pt")
        sampler = DistributedSampler(dataset, num_replicas={size}, rank={rank})
        loader = DataLoader(dataset, batch_size=32, sampler=sampler)
        model = torch.nn.Linear(10, 4)
        opt = hvd.DistributedOptimizer(torch.optim.Adam(model.parameters(), lr=1e-3 * hvd.size()),
                                       named_parameters=model.named_parameters())
        hvd.broadcast_parameters(model.state_dict(), root_rank=0)
        for epoch in range(3):
            sampler.set_epoch(epoch)
            for x, y in loader:
                opt.zero_grad()
                torch.nn.functional.cross_entropy(model(x), y).backward()
                opt.step()


    if __name__ == "__main__":
        main()
'''


def split_script(imports, size, rank):
    return SPLIT_SCRIPT.replace("{imports}", imports).replace("{size}", size).replace("{rank}", rank)


def test_a_split_by_an_absent_modules_values_cannot_be_told(tmp_path):
    script = split_script("from util import misc as dist_utils", "dist_utils.get_world_size()",
                          "dist_utils.get_rank()")
    found = verdict(tmp_path, {"train.py": script}, 3)
    assert found.verdict == UNKNOWN and "get_world_size" in found.evidence, found.evidence


def test_a_split_by_the_users_options_is_wrong(tmp_path):
    found = verdict(tmp_path, {"train.py": split_script("", "args.world_size", "args.rank")}, 3)
    assert found.verdict == WRONG and "without hvd.size() and hvd.rank()" in found.evidence, found.evidence


TRAINER_SCRIPT = '''
    import tensorflow as tf
    import horovod.tensorflow as hvd

    from pinn import Trainer, load_points


    def main():
        hvd.init()
        gpus = tf.config.list_physical_devices("GPU")
        if gpus:
            tf.config.set_visible_devices(gpus[hvd.local_rank()], "GPU")
        x, u = load_points("obs.npz")
        ds = tf.data.Dataset.from_tensor_slices((x, u)).shuffle(10000, seed=0).batch(1024)
        model = tf.keras.Sequential([tf.keras.layers.Dense(64, activation="tanh"), tf.keras.layers.Dense(1)])
        optimizer = tf.keras.optimizers.Adam(1e-3 * hvd.size())
        Trainer(model, optimizer).fit(ds, 20000)


    if __name__ == "__main__":
        main()
'''

TRAINER_MODULE = '''
    import numpy as np
    import tensorflow as tf
    import horovod.tensorflow as hvd


    def load_points(path):
        blob = np.load(path)
        return blob["x"], blob["u"]


    class Trainer:
        def __init__(self, model, optimizer):
            self.model, self.optimizer = model, optimizer

        def fit(self, ds, steps):
            first = True
            for step, (x, u) in enumerate(ds.repeat().take(steps)):
                with tf.GradientTape() as tape:
                    loss = tf.reduce_mean(tf.square(self.model(x) - u))
                tape = hvd.DistributedGradientTape(tape)
                grads = tape.gradient(loss, self.model.trainable_variables)
                self.optimizer.apply_gradients(zip(grads, self.model.trainable_variables))
                if first:
                    hvd.broadcast_variables(self.model.variables, root_rank=0)
                    hvd.broadcast_variables(self.optimizer.variables, root_rank=0)
                    first = False
'''


def test_training_in_a_trainer_that_is_not_there_cannot_tell_the_partition(tmp_path):
    found = verdict(tmp_path, {"train.py": TRAINER_SCRIPT}, 3)
    assert found.verdict == UNKNOWN and "Trainer(...)" in found.evidence, found.evidence


def test_a_trainer_read_in_the_project_that_takes_the_whole_data_is_missing_the_partition(tmp_path):
    files = {"train.py": TRAINER_SCRIPT, "pinn/__init__.py": TRAINER_MODULE}
    found = verdict(tmp_path, files, 3)
    assert found.verdict in FLAGGED and "whole data set" in found.evidence, found.evidence


# --- step 3: a seed seeds its own library's generator ---------------------------------------------------------
RECORDS_MODULE = '''
    import json
    import random


    class Records:
        def __init__(self, path, rank, world_size):
            self.path, self.rank, self.world_size = path, rank, world_size

        def setup(self):
            with open(self.path) as f:
                records = [json.loads(line) for line in f]
            random.shuffle(records)
            self.train = records[self.rank::self.world_size]
            return self
'''

RECORDS_SCRIPT = '''
    import random

    import torch
    import horovod.torch as hvd

    from sspred.data import Records


    def main():
        hvd.init()
        torch.set_num_threads(1)
        {seed}
        data = Records("train.jsonl", rank=hvd.rank(), world_size=hvd.size()).setup()
        model = torch.nn.Linear(20, 3)
        opt = hvd.DistributedOptimizer(torch.optim.SGD(model.parameters(), lr=0.1 * hvd.size()),
                                       named_parameters=model.named_parameters())
        hvd.broadcast_parameters(model.state_dict(), root_rank=0)
        for epoch in range(5):
            for r in data.train:
                opt.zero_grad()
                x, y = torch.tensor(r["x"]), torch.tensor(r["y"])
                torch.nn.functional.cross_entropy(model(x), y).backward()
                opt.step()


    if __name__ == "__main__":
        main()
'''


def records_project(seed):
    return {"train.py": RECORDS_SCRIPT.replace("{seed}", seed), "sspred/__init__.py": "",
            "sspred/data.py": RECORDS_MODULE}


def test_torch_seed_leaves_pythons_shuffle_before_the_partition_unseeded(tmp_path):
    found = verdict(tmp_path, records_project("torch.manual_seed(42)"), 3)
    assert found.verdict == WRONG and "random.shuffle(records)" in found.evidence, found.evidence


def test_pythons_seed_makes_the_shuffle_before_the_partition_common(tmp_path):
    found = verdict(tmp_path, records_project("random.seed(42)"), 3)
    assert found.verdict == OK, found.evidence


# --- step 1: init() under a condition that the Horovod calls after it do not share ---------------------------
LM_SCRIPT = '''
    import argparse

    import torch
    import horovod.torch as hvd

    from lm.data import batches


    def main():
        p = argparse.ArgumentParser()
        p.add_argument("--no-cuda", action="store_true")
        p.add_argument("--horovod", action="store_true")
        args = p.parse_args()
        use_cuda = torch.cuda.is_available() and not args.no_cuda
        {init}
        device = torch.device("cuda" if use_cuda else "cpu")
        rank, world = {queries}
        model = torch.nn.Linear(64, 64).to(device)
        opt = torch.optim.Adam(model.parameters(), lr=1e-3 * world)
        {wrap}
        for x, y in batches("corpus.txt", rank, world):
            opt.zero_grad()
            torch.nn.functional.mse_loss(model(x.to(device)), y.to(device)).backward()
            opt.step()


    if __name__ == "__main__":
        main()
'''

LM_DATA = '''
    import torch


    def batches(path, rank, world):
        data = torch.load(path)
        for i in range(rank * 32, len(data) - 32, world * 32):
            yield data[i:i + 32, :64], data[i:i + 32, 64:]
'''


def lm_project(init, queries, wrap):
    script = LM_SCRIPT.replace("{init}", init).replace("{queries}", queries).replace("{wrap}", wrap)
    return {"train.py": script, "lm/__init__.py": "", "lm/data.py": LM_DATA}


WRAP = ("opt = hvd.DistributedOptimizer(opt, named_parameters=model.named_parameters())\n"
        "        hvd.broadcast_parameters(model.state_dict(), root_rank=0)")


def test_init_only_on_the_gpu_path_is_wrong_on_the_cpu_path(tmp_path):
    init = "if use_cuda:\n            hvd.init()\n            torch.cuda.set_device(hvd.local_rank())"
    found = verdict(tmp_path, lm_project(init, "hvd.rank(), hvd.size()", WRAP), 1)
    assert found.verdict == WRONG and "use_cuda" in found.evidence, found.evidence


def test_init_first_then_the_gpu_pinned_on_the_gpu_path_is_right(tmp_path):
    init = "hvd.init()\n        if use_cuda:\n            torch.cuda.set_device(hvd.local_rank())"
    found = verdict(tmp_path, lm_project(init, "hvd.rank(), hvd.size()", WRAP), 1)
    assert found.verdict == OK, found.evidence


def test_init_behind_the_scripts_horovod_switch_is_its_horovod_mode(tmp_path):
    init = "if args.horovod:\n            hvd.init()"
    queries = "hvd.rank(), hvd.size()"  # crashes without --horovod: that mode is not the one judged
    wrap = ("if args.horovod:\n"
            "            opt = hvd.DistributedOptimizer(opt, named_parameters=model.named_parameters())\n"
            "            hvd.broadcast_parameters(model.state_dict(), root_rank=0)")
    found = verdict(tmp_path, lm_project(init, queries, wrap), 1)
    assert found.verdict == OK, found.evidence


# --- step 8: an average over ranks of a count, divided by the whole data set's size --------------------------
ENGINE = '''
    import torch
    import horovod.torch as hvd


    @torch.no_grad()
    def evaluate(model, loader):
        model.eval()
        correct = 0
        for images, labels in loader:
            correct += (model(images).argmax(1) == labels).sum().item()
        correct = hvd.allreduce(torch.tensor(float(correct)), name="val_correct"{op}).item()
        return correct / len(loader.dataset)
'''

HERBARIUM = '''
    import torch
    import horovod.torch as hvd
    from torch.utils.data import DataLoader
    from torch.utils.data.distributed import DistributedSampler

    from engine import evaluate


    def main():
        hvd.init()
        torch.set_num_threads(1)
        train_set, val_set = torch.load("train.pt"), torch.load("val.pt")
        train_sampler = DistributedSampler(train_set, num_replicas=hvd.size(), rank=hvd.rank())
        val_sampler = DistributedSampler(val_set, num_replicas=hvd.size(), rank=hvd.rank(), shuffle=False)
        train_loader = DataLoader(train_set, batch_size=64, sampler=train_sampler)
        val_loader = DataLoader(val_set, batch_size=128, sampler=val_sampler)
        model = torch.nn.Linear(32, 10)
        opt = hvd.DistributedOptimizer(torch.optim.SGD(model.parameters(), lr=0.01 * hvd.size()),
                                       named_parameters=model.named_parameters())
        hvd.broadcast_parameters(model.state_dict(), root_rank=0)
        for epoch in range(10):
            train_sampler.set_epoch(epoch)
            model.train()
            for x, y in train_loader:
                opt.zero_grad()
                torch.nn.functional.cross_entropy(model(x), y).backward()
                opt.step()
            acc = evaluate(model, val_loader)
            if hvd.rank() == 0:
                print(f"epoch {epoch}: val acc {100 * acc:.2f}%")
                torch.save(model.state_dict(), "model.pt")


    if __name__ == "__main__":
        main()
'''


def test_an_averaged_count_over_the_whole_data_sets_size_is_wrong(tmp_path):
    files = {"train.py": HERBARIUM, "engine.py": ENGINE.replace("{op}", "")}
    found = verdict(tmp_path, files, 8)
    assert found.verdict == WRONG and "len(loader.dataset)" in found.evidence, found.evidence


def test_a_summed_count_over_the_whole_data_sets_size_is_the_accuracy(tmp_path):
    files = {"train.py": HERBARIUM, "engine.py": ENGINE.replace("{op}", ", op=hvd.Sum")}
    found = verdict(tmp_path, files, 8)
    assert found.verdict == OK, found.evidence


def test_an_averaged_count_of_the_whole_data_on_every_rank_over_its_size_is_the_accuracy(tmp_path):
    script = HERBARIUM.replace("val_loader = DataLoader(val_set, batch_size=128, sampler=val_sampler)",
                               "val_loader = DataLoader(val_set, batch_size=128)")
    files = {"train.py": script, "engine.py": ENGINE.replace("{op}", "")}
    found = verdict(tmp_path, files, 8)
    assert found.verdict == OK, found.evidence


# --- step 2: TensorFlow's GPUs are fixed by the first tensor it makes -----------------------------------------
GPU_UTIL = '''
    import tensorflow as tf


    def configure_gpu(local_rank):
        gpus = tf.config.list_physical_devices("GPU")
        if not gpus:
            return
        try:
            tf.config.set_visible_devices(gpus[local_rank], "GPU")
        except RuntimeError as err:  # visible devices must be set before the GPUs are initialised
            print(err)
'''

CIFAR_DATA = '''
    import numpy as np
    import tensorflow as tf


    def load_cifar(path, batch_size, size, rank):
        blob = np.load(path)
        ds = tf.data.Dataset.from_tensor_slices((blob["x"], blob["y"]))
        return ds.shard(size, rank).shuffle(10000).batch(batch_size)
'''

CIFAR_SCRIPT = '''
    import tensorflow as tf
    import horovod.tensorflow.keras as hvd

    from data import load_cifar
    from gpu import configure_gpu

    hvd.init()
    {before}
    train_ds = load_cifar("cifar.npz", 128, hvd.size(), hvd.rank())
    model = tf.keras.Sequential([tf.keras.layers.Flatten(), tf.keras.layers.Dense(10)])
    {after}
    opt = hvd.DistributedOptimizer(tf.keras.optimizers.SGD(0.01 * hvd.size()))
    model.compile(optimizer=opt, loss="sparse_categorical_crossentropy")
    model.fit(train_ds, epochs=5, callbacks=[hvd.callbacks.BroadcastGlobalVariablesCallback(0),
                                             hvd.callbacks.MetricAverageCallback()],
              verbose=1 if hvd.rank() == 0 else 0)
'''


def cifar_project(before, after):
    script = CIFAR_SCRIPT.replace("{before}", before).replace("{after}", after)
    return {"train.py": script, "data.py": CIFAR_DATA, "gpu.py": GPU_UTIL}


def test_gpu_pinned_after_the_data_set_and_model_are_made_is_too_late(tmp_path):
    found = verdict(tmp_path, cifar_project("", "configure_gpu(hvd.local_rank())"), 2)
    assert found.verdict == WRONG and "after TensorFlow has initialised its GPUs" in found.evidence, found.evidence


def test_gpu_pinned_before_any_tensor_is_made_is_in_time(tmp_path):
    found = verdict(tmp_path, cifar_project("configure_gpu(hvd.local_rank())", ""), 2)
    assert found.verdict == OK, found.evidence
