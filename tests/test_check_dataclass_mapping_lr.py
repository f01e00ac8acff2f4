"""Step 4: a dataclass config made from a `**` mapping the source does not show whole
(`TrainConfig(**vars(parser.parse_args()))`, the parser's options generated from the fields with the fields'
defaults). The field's declared default is what holds when the mapping leaves it out, and what the parser
hands back by default: `lr: float = 1e-3 * hvd.size()` is scaled (ok), `lr: float = 1e-3` is not (flagged),
where before any `**` made the field read as nothing ("not scaled" either way).

Written from scratch for these tests: a Keras project whose config lives in a package module. (The config
module's class body reads hvd.size() when it is imported, so it is imported inside parse_cli(), after init.)"""
from hvdkit.check import FLAGGED, OK

from crash_scripts import check_project

CONFIG = '''
    from dataclasses import dataclass

    import horovod.tensorflow.keras as hvd


    @dataclass
    class TrainConfig:
        out_dir: str = "runs/unet"
        batch_size: int = 8
        epochs: int = 5
        lr: float = {lr}
'''

TRAIN = '''
    """Segmentation.  horovodrun -np 4 python train.py"""
    import argparse
    import dataclasses

    import numpy as np
    import keras
    import tensorflow as tf
    import horovod.tensorflow.keras as hvd


    def parse_cli():
        from seg.config import TrainConfig  # its class body reads hvd.size(): imported after init
        defaults = TrainConfig()
        ap = argparse.ArgumentParser()
        for f in dataclasses.fields(defaults):
            ap.add_argument("--" + f.name.replace("_", "-"), type=type(getattr(defaults, f.name)),
                            default=getattr(defaults, f.name))
        return TrainConfig(**vars(ap.parse_args()))


    def main():
        hvd.init()
        tf.config.threading.set_intra_op_parallelism_threads(1)
        cfg = parse_cli()
        x = np.random.default_rng(0).normal(size=(2048, 16)).astype("float32")[hvd.rank()::hvd.size()]
        y = (x[:, :1] > 0).astype("float32")
        model = keras.Sequential([keras.layers.Dense(32, activation="relu"),
                                  keras.layers.Dense(1, activation="sigmoid")])
        opt = keras.optimizers.Adam(learning_rate=cfg.lr)
        model.compile(optimizer=hvd.DistributedOptimizer(opt), loss="binary_crossentropy")
        callbacks = [hvd.callbacks.BroadcastGlobalVariablesCallback(0), hvd.callbacks.MetricAverageCallback()]
        if hvd.rank() == 0:
            callbacks.append(keras.callbacks.ModelCheckpoint(cfg.out_dir + "/unet.keras"))
        model.fit(x, y, batch_size=cfg.batch_size, epochs=cfg.epochs, callbacks=callbacks,
                  verbose=2 if hvd.rank() == 0 else 0)


    if __name__ == "__main__":
        main()
'''


def step4(tmp_path, lr):
    files = {"train.py": TRAIN, "seg/__init__.py": "", "seg/config.py": CONFIG.replace("{lr}", lr)}
    return check_project(tmp_path, files)[2][4]


def test_a_field_default_scaled_by_the_size_is_the_lr(tmp_path):
    f = step4(tmp_path, "1e-3 * hvd.size()")
    assert f.verdict == OK, f


def test_an_unscaled_field_default_is_flagged(tmp_path):
    assert step4(tmp_path, "1e-3").verdict in FLAGGED
