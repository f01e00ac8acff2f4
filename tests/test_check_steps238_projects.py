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
