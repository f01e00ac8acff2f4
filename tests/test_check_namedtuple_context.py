"""Step 4: the number of ranks read off a namedtuple the project's set-up returns. `ctx = setup()` with
`DistContext = namedtuple("DistContext", ["rank", "local_rank", "size"])` and `return DistContext(rank=
hvd.rank(), local_rank=hvd.local_rank(), size=hvd.size())` (or the fields by position): `ctx.size` is
hvd.size(), so `base_lr * ctx.size` is scaled (ok), `base_lr * ctx.rank` depends on the rank and a bare
`base_lr` is not scaled (flagged).

Written from scratch for these tests: a Keras project whose set-up lives in a package module."""
import pytest

from hvdkit.check import FLAGGED, OK

from crash_scripts import check_project

DIST = '''
    from collections import namedtuple

    import tensorflow as tf
    import horovod.tensorflow.keras as hvd

    DistContext = namedtuple("DistContext", {fields})


    def setup():
        hvd.init()
        gpus = tf.config.list_physical_devices("GPU")
        if gpus:
            tf.config.set_visible_devices(gpus[hvd.local_rank()], "GPU")
        return {made}
'''

TRAIN = '''
    """Tile segmentation.  horovodrun -np 4 python train.py"""
    import numpy as np
    import keras
    import horovod.tensorflow.keras as hvd

    from seg import distributed

    BASE_LR = 2e-4


    def main():
        ctx = distributed.setup()
        x = np.random.default_rng(0).normal(size=(2048, 16)).astype("float32")[ctx.rank::ctx.size]
        y = (x[:, :1] > 0).astype("float32")
        model = keras.Sequential([keras.layers.Dense(32, activation="relu"),
                                  keras.layers.Dense(1, activation="sigmoid")])
        lr = {lr}
        model.compile(optimizer=hvd.DistributedOptimizer(keras.optimizers.AdamW(learning_rate=lr)),
                      loss="binary_crossentropy")
        callbacks = [hvd.callbacks.BroadcastGlobalVariablesCallback(0), hvd.callbacks.MetricAverageCallback()]
        if ctx.rank == 0:
            callbacks.append(keras.callbacks.ModelCheckpoint("seg.keras"))
        model.fit(x, y, batch_size=32, epochs=3, callbacks=callbacks, verbose=2 if ctx.rank == 0 else 0)


    if __name__ == "__main__":
        main()
'''

KEYWORDS = ('["rank", "local_rank", "size"]',
            "DistContext(rank=hvd.rank(), local_rank=hvd.local_rank(), size=hvd.size())")
POSITIONAL = ('"rank local_rank size"', "DistContext(hvd.rank(), hvd.local_rank(), hvd.size())")


def step4(tmp_path, made, lr):
    dist = DIST.replace("{fields}", made[0]).replace("{made}", made[1])
    files = {"train.py": TRAIN.replace("{lr}", lr), "seg/__init__.py": "", "seg/distributed.py": dist}
    return check_project(tmp_path, files)[2][4]


@pytest.mark.parametrize("made", [KEYWORDS, POSITIONAL], ids=["keywords", "positional"])
def test_the_size_read_off_the_context_scales_the_lr(tmp_path, made):
    assert step4(tmp_path, made, "BASE_LR * ctx.size").verdict == OK


@pytest.mark.parametrize("lr", ["BASE_LR * ctx.rank", "BASE_LR"])
def test_the_rank_or_nothing_does_not(tmp_path, lr):
    assert step4(tmp_path, KEYWORDS, lr).verdict in FLAGGED
