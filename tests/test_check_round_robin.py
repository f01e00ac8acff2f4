"""Step 3: items dealt round-robin, kept where their index modulo the number of ranks is this rank.

`ds.enumerate().filter(lambda i, xy: tf.equal(i % world, rank))` in a data module and
`[p for i, p in enumerate(paths) if i % hvd.size() == hvd.rank()]` are partitions: each rank keeps every
size-th item from its own offset. The same comprehension comparing with 0 instead of the rank keeps the
same files on every rank. Written from scratch for these tests: a Keras project with its data module, and a PyTorch
project whose file list is dealt in the entry script."""
from hvdkit.check import FLAGGED, OK

from crash_scripts import check_project

KERAS = '''
    """CIFAR-style run.  horovodrun -np 4 python run.py"""
    import numpy as np
    import tensorflow as tf
    import keras
    import horovod.tensorflow.keras as hvd

    from imgs.data import build_split

    hvd.init()
    gpus = tf.config.list_physical_devices("GPU")
    if gpus:
        tf.config.set_visible_devices(gpus[hvd.local_rank()], "GPU")
    train_ds, n_train = build_split("train", 64, hvd.rank(), hvd.size())
    steps = n_train // (64 * hvd.size())
    model = keras.Sequential([keras.layers.Flatten(), keras.layers.Dense(10)])
    opt = hvd.DistributedOptimizer(keras.optimizers.SGD(0.01 * hvd.size()))
    model.compile(optimizer=opt, loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True))
    callbacks = [hvd.callbacks.BroadcastGlobalVariablesCallback(0), hvd.callbacks.MetricAverageCallback()]
    if hvd.rank() == 0:
        callbacks.append(keras.callbacks.ModelCheckpoint("run.keras"))
    model.fit(train_ds, steps_per_epoch=steps, epochs=3, callbacks=callbacks, verbose=hvd.rank() == 0)
'''

KERAS_DATA = '''
    import numpy as np
    import tensorflow as tf


    def build_split(split, batch, rank, world):
        rng = np.random.default_rng(0 if split == "train" else 1)
        x = rng.normal(size=(5000, 8, 8, 3)).astype("float32")
        y = rng.integers(0, 10, 5000)
        ds = tf.data.Dataset.from_tensor_slices((x, y)).enumerate()
        ds = ds.filter(lambda i, xy: tf.equal(i % world, {keep})).map(lambda i, xy: xy)
        return ds.shuffle(1000).repeat().batch(batch), len(x)
'''

TORCH = '''
    """Image folder classifier.  horovodrun -np 4 python train.py"""
    import glob

    import torch
    import horovod.torch as hvd

    from folders.io import load_images


    def main():
        hvd.init()
        torch.set_num_threads(1)
        paths = sorted(glob.glob("data/train/*.npy"))
        mine = [p for i, p in enumerate(paths) if i % hvd.size() == {keep}]
        x, y = load_images(mine)
        model = torch.nn.Linear(x.shape[1], 10)
        opt = hvd.DistributedOptimizer(torch.optim.SGD(model.parameters(), lr=0.01 * hvd.size()),
                                       named_parameters=model.named_parameters())
        hvd.broadcast_parameters(model.state_dict(), root_rank=0)
        for epoch in range(3):
            perm = torch.randperm(len(x))
            for k in range(0, len(x) - 32 + 1, 32):
                idx = perm[k:k + 32]
                opt.zero_grad()
                torch.nn.functional.cross_entropy(model(x[idx]), y[idx]).backward()
                opt.step()
            if hvd.rank() == 0:
                torch.save(model.state_dict(), "folders.pt")


    if __name__ == "__main__":
        main()
'''

TORCH_IO = '''
    import numpy as np
    import torch


    def load_images(paths):
        blobs = [np.load(p) for p in paths]
        x = torch.from_numpy(np.concatenate([b[:, 1:] for b in blobs]).astype("float32"))
        y = torch.from_numpy(np.concatenate([b[:, 0] for b in blobs]).astype("int64"))
        return x, y
'''


def keras_step3(tmp_path, keep):
    files = {"run.py": KERAS, "imgs/__init__.py": "", "imgs/data.py": KERAS_DATA.replace("{keep}", keep)}
    return check_project(tmp_path, files, script="run.py")[2][3]


def torch_step3(tmp_path, keep):
    files = {"train.py": TORCH.replace("{keep}", keep), "folders/__init__.py": "", "folders/io.py": TORCH_IO}
    return check_project(tmp_path, files)[2][3]


def test_a_tf_data_filter_dealing_by_rank_is_a_partition(tmp_path):
    f = keras_step3(tmp_path, "rank")
    assert f.verdict == OK and "disjoint" in f.evidence, f


def test_a_comprehension_dealing_files_by_rank_is_a_partition(tmp_path):
    f = torch_step3(tmp_path, "hvd.rank()")
    assert f.verdict == OK and "disjoint" in f.evidence, f


def test_the_same_comprehension_without_the_rank_is_not(tmp_path):
    assert torch_step3(tmp_path, "0").verdict in FLAGGED
