"""A class body runs when its `class` statement does: for a module's class, at import. A class attribute
`rank = hvd.rank()` in a logging module imported before `hvd.init()` raises ValueError ("Horovod has not
been initialized"; reproduced in the blind set zd): a crash, and step 1 wrong. The same query in a method
runs only when called, after init: fine.

Written from scratch for these tests: a Keras job, `train.py` and `jobkit/logs.py`."""
from crash_scripts import Source, check_project
from hvdkit.check import OK, WRONG

TRAIN = '''
    """Transaction classifier.  horovodrun -np 4 python train.py"""
    import logging

    import numpy as np
    import tensorflow as tf
    import horovod.tensorflow.keras as hvd

    from jobkit.logs import RankFilter


    def main():
        hvd.init()
        logging.getLogger().addFilter(RankFilter())
        gpus = tf.config.list_physical_devices("GPU")
        if gpus:
            tf.config.set_visible_devices(gpus[hvd.local_rank()], "GPU")
        x = np.random.rand(4096, 12).astype("float32")
        y = np.random.randint(0, 2, 4096)
        ds = tf.data.Dataset.from_tensor_slices((x, y)).shard(hvd.size(), hvd.rank()).batch(64)
        model = tf.keras.Sequential([tf.keras.Input((12,)), tf.keras.layers.Dense(2)])
        model.compile(optimizer=hvd.DistributedOptimizer(tf.keras.optimizers.Adam(1e-3 * hvd.size())),
                      loss=tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True))
        callbacks = [hvd.callbacks.BroadcastGlobalVariablesCallback(0), hvd.callbacks.MetricAverageCallback()]
        if hvd.rank() == 0:
            callbacks.append(tf.keras.callbacks.ModelCheckpoint("out/txn.keras"))
        model.fit(ds, epochs=5, callbacks=callbacks, verbose=2 if hvd.rank() == 0 else 0)


    if __name__ == "__main__":
        main()
'''

LOGS = Source('''
    import logging

    import horovod.tensorflow.keras as hvd


    class RankFilter(logging.Filter):
        """Adds the worker's rank to every log record."""
        RANK

        def filter(self, record):
            record.rank = self.rank
            return True
''')


def check(tmp_path, rank):
    files = {"train.py": TRAIN, "jobkit/__init__.py": "", "jobkit/logs.py": LOGS.replace("RANK", rank)}
    crash, _, found = check_project(tmp_path, files)
    return crash, found[1]


def test_a_class_attribute_asking_the_rank_at_import_crashes(tmp_path):
    crash, f1 = check(tmp_path, "rank = hvd.rank()")
    assert crash and crash["file"] == "jobkit/logs.py" and crash["error"].startswith("ValueError"), crash
    assert f1.verdict == WRONG, f1


def test_asking_it_in_a_method_is_fine(tmp_path):
    crash, f1 = check(tmp_path, "@property\n        def rank(self):\n            return hvd.rank()")
    assert crash is None and f1.verdict == OK, (crash, f1)
