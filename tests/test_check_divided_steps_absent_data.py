"""Step 3: steps divided by hvd.size() over data made by the project's code that is not there.

Horovod's idiom (each rank shuffles on its own, and the steps per epoch are divided by hvd.size()) is judged
by how the data is shuffled. When the data set is made by a module of the project that cannot be read, the
shuffle (or a shard) is there: the pass cannot tell, and says so instead of "the shuffle is seeded alike".
With the module present, the same entry script is judged on what the module does. Written from scratch for
these tests: a Keras text classifier whose data module is given or left out."""
from hvdkit.check import FLAGGED, OK, UNKNOWN

from crash_scripts import check_project

ENTRY = '''
    """Review sentiment.  horovodrun -np 4 python train_keras.py --epochs 3"""
    import argparse

    import tensorflow as tf
    import keras
    import horovod.tensorflow.keras as hvd

    from txt.data import load_texts, make_dataset

    SEED = 1234


    def main():
        ap = argparse.ArgumentParser()
        ap.add_argument("--epochs", type=int, default=3)
        ap.add_argument("--batch-size", type=int, default=64)
        ap.add_argument("--lr", type=float, default=1e-3)
        args = ap.parse_args()
        hvd.init()
        gpus = tf.config.list_physical_devices("GPU")
        if gpus:
            tf.config.set_visible_devices(gpus[hvd.local_rank()], "GPU")
        keras.utils.set_random_seed(SEED)
        x, y = load_texts("train")
        train_ds = make_dataset(x, y, args.batch_size)
        steps = len(x) // (args.batch_size * hvd.size())
        model = keras.Sequential([keras.layers.Dense(32, activation="relu"),
                                  keras.layers.Dense(1, activation="sigmoid")])
        opt = hvd.DistributedOptimizer(keras.optimizers.Adam(learning_rate=args.lr * hvd.size()))
        model.compile(optimizer=opt, loss="binary_crossentropy", metrics=["accuracy"])
        callbacks = [hvd.callbacks.BroadcastGlobalVariablesCallback(0), hvd.callbacks.MetricAverageCallback()]
        if hvd.rank() == 0:
            callbacks.append(keras.callbacks.ModelCheckpoint("txt-{epoch}.keras"))
        model.fit(train_ds, steps_per_epoch=steps, epochs=args.epochs, callbacks=callbacks,
                  verbose=2 if hvd.rank() == 0 else 0)


    if __name__ == "__main__":
        main()
'''

DATA = '''
    import numpy as np
    import tensorflow as tf
    import horovod.tensorflow.keras as hvd


    def load_texts(split):
        rng = np.random.default_rng(0 if split == "train" else 1)
        x = rng.normal(size=(5000, 20)).astype("float32")
        return x, (x[:, 0] > 0).astype("float32")


    def make_dataset(x, y, batch):
        ds = tf.data.Dataset.from_tensor_slices((x, y))
        return ds.repeat().shuffle(4096, seed={seed}).batch(batch)
'''


def step3(tmp_path, data=None):
    files = {"train_keras.py": ENTRY, "txt/__init__.py": ""}
    if data is not None:
        files["txt/data.py"] = DATA.replace("{seed}", data)
    return check_project(tmp_path, files, script="train_keras.py")[2][3]


def test_data_made_by_an_absent_module_is_cannot_tell(tmp_path):
    f = step3(tmp_path)
    assert f.verdict == UNKNOWN and "make_dataset(...)" in f.evidence, f


def test_the_module_shuffling_alike_on_every_rank_is_flagged(tmp_path):
    f = step3(tmp_path, "7")
    assert f.verdict in FLAGGED and "seeded alike" in f.evidence, f


def test_the_module_shuffling_per_rank_is_horovods_idiom(tmp_path):
    f = step3(tmp_path, "7 + hvd.rank()")
    assert f.verdict == OK, f
