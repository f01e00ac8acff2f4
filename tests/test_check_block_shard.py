"""Step 3: a rank's contiguous block of indices, `np.arange(rank * per, (rank + 1) * per)` with per = n //
size (or `range(...)`, `torch.arange(...)`), made in the project's data module: the ranks read disjoint
parts. A range that starts at the rank's offset but runs to the end is no block (rank 0 reads everything),
nor is the whole range on every rank.

Written from scratch for these tests: an entry script and a `surrogate` package (a Keras PyDataset over a
memory-mapped array)."""
import textwrap

from crash_scripts import check_project
from hvdkit.check import MISSING, OK

DATA = '''
    import numpy as np
    import keras


    class PairSequence(keras.utils.PyDataset):
        def __init__(self, path, batch, rank, size, **kw):
            super().__init__(**kw)
            self.arr = np.load(path, mmap_mode="r")
            n = self.arr.shape[0] - 1
            per = n // size
            self.starts = {starts}
            self.batch = batch

        def __len__(self):
            return len(self.starts) // self.batch

        def __getitem__(self, i):
            t = self.starts[i * self.batch:(i + 1) * self.batch]
            return np.asarray(self.arr[t], dtype="float32"), np.asarray(self.arr[t + 1], dtype="float32")
'''

TRAIN = '''
    """Flow surrogate.  horovodrun -np 8 python train.py"""
    import keras
    import tensorflow as tf
    import horovod.tensorflow.keras as hvd

    from surrogate.data import PairSequence


    def main(start_epoch=0, epochs=20):
        hvd.init()
        gpus = tf.config.list_physical_devices("GPU")
        if gpus:
            tf.config.set_visible_devices(gpus[hvd.local_rank()], "GPU")
        train = PairSequence("data/train.npy", 16, hvd.rank(), hvd.size())
        model = keras.Sequential([keras.layers.Dense(64, activation="relu"), keras.layers.Dense(32)])
        opt = hvd.DistributedOptimizer(keras.optimizers.Adam(1e-3 * hvd.size()))
        model.compile(optimizer=opt, loss="mse")
        cbs = [hvd.callbacks.BroadcastGlobalVariablesCallback(0), hvd.callbacks.MetricAverageCallback()]
        if hvd.rank() == 0:
            cbs.append(keras.callbacks.ModelCheckpoint("ckpt/flow.weights.h5", save_weights_only=True))
        model.fit(train, initial_epoch=start_epoch, epochs=epochs, callbacks=cbs, verbose=2 if hvd.rank() == 0 else 0)


    if __name__ == "__main__":
        main()
'''


def step3(tmp_path, starts):
    files = {"train.py": TRAIN, "setup.py": "", "surrogate/__init__.py": "",
             "surrogate/data.py": DATA.replace("{starts}", starts)}
    _, _, findings = check_project(tmp_path, {k: textwrap.dedent(v).lstrip("\n") for k, v in files.items()})
    return findings[3]


def test_a_block_of_indices_per_rank_is_a_partition(tmp_path):
    f = step3(tmp_path, "np.arange(rank * per, (rank + 1) * per)")
    assert f.verdict == OK and "np.arange" in f.evidence, f


def test_a_block_in_a_builtin_range_is_a_partition_too(tmp_path):
    assert step3(tmp_path, "np.array(list(range(rank * per, (rank + 1) * per)))").verdict == OK


def test_a_range_from_the_ranks_offset_to_the_end_is_no_partition(tmp_path):
    assert step3(tmp_path, "np.arange(rank * per, n)").verdict == MISSING


def test_the_whole_range_on_every_rank_is_no_partition(tmp_path):
    assert step3(tmp_path, "np.arange(0, n)").verdict == MISSING
