"""Guards read from the project's configuration, as the run with every default reads it (issue 39, item 4):

- a dataclass field nothing sets after the instance is made holds what the call that makes it gives (a
  keyword, a position, an entry of a `**` mapping) or its declared default;
- a YAML or JSON file the code loads by a path the source fixes (`--config` defaulting to
  "configs/base.yaml") is read, so `cls(**{k: v for k, v in raw.items() if k in known})` holds its entries;
- a dict of defaults updated from a file only `if path:` keeps its defaults when no argument is given;
- an update from a file that cannot be read makes its entries unknown (cannot tell), never absent.

A wrapper that then runs only under an option off by default is step 5's fault. Two projects written from
scratch for these tests: a TF tape loop with a YAML-backed dataclass config (`fno/`), and a Keras `fit`
script whose optimizer factory wraps only when a JSON-backed dict says so (`fraudkit/`)."""
from crash_scripts import Source, check_project
from hvdkit.check import OK, WRONG

TAPE_TRAIN = Source('''
    """FNO surrogate.  srun -n 8 python train.py --config configs/run.yaml"""
    import argparse

    import numpy as np
    import tensorflow as tf
    import horovod.tensorflow as hvd

    from fno.config import RunConfig
    from fno.step import make_step


    def main():
        ap = argparse.ArgumentParser()
        ap.add_argument("--config", default="configs/run.yaml")
        ap.add_argument("--epochs", type=int)
        a = ap.parse_args()
        cfg = RunConfig.from_yaml(a.config, epochs=a.epochs)
        hvd.init()
        gpus = tf.config.list_physical_devices("GPU")
        if gpus:
            tf.config.set_visible_devices(gpus[hvd.local_rank()], "GPU")
        x = np.random.rand(2048, 32).astype("float32")[hvd.rank()::hvd.size()]
        ds = tf.data.Dataset.from_tensor_slices((x, x)).batch(cfg.batch_size)
        model = tf.keras.Sequential([tf.keras.layers.Dense(32)])
        opt = tf.keras.optimizers.Adam(learning_rate=cfg.lr * hvd.size())
        step = make_step(model, opt, cfg)
        first = True
        for epoch in range(cfg.epochs):
            total, n = 0.0, 0
            for xb, yb in ds:
                loss = step(xb, yb)
                if first:
                    hvd.broadcast_variables(model.variables, root_rank=0)
                    hvd.broadcast_variables(opt.variables, root_rank=0)
                    first = False
                total, n = total + float(loss), n + 1
            mean = hvd.allreduce(tf.constant(total / n))
            if hvd.rank() == 0:
                print(epoch, float(mean))
                model.save_weights(f"ckpt/e{epoch}.weights.h5")


    if __name__ == "__main__":
        main()
''')

TAPE_CONFIG = '''
    from dataclasses import dataclass, fields

    import yaml


    @dataclass
    class RunConfig:
        epochs: int = 20
        batch_size: int = 32
        lr: float = 1e-3
        average_grads: bool = DEFAULT

        @classmethod
        def from_yaml(cls, path, **overrides):
            with open(path) as fh:
                raw = yaml.safe_load(fh) or {}
            raw.update({k: v for k, v in overrides.items() if v is not None})
            known = {f.name for f in fields(cls)}
            return cls(**{k: v for k, v in raw.items() if k in known})
'''

TAPE_STEP = '''
    import tensorflow as tf
    import horovod.tensorflow as hvd


    def make_step(model, opt, cfg):
        @tf.function
        def step(x, y):
            with tf.GradientTape() as tape:
                loss = tf.reduce_mean(tf.square(model(x, training=True) - y))
            if cfg.average_grads:
                tape = hvd.DistributedGradientTape(tape)
            grads = tape.gradient(loss, model.trainable_variables)
            opt.apply_gradients(zip(grads, model.trainable_variables))
            return loss

        return step
'''


def tape_project(tmp_path, default, yaml_text):
    files = {"train.py": TAPE_TRAIN, "fno/__init__.py": "", "fno/step.py": TAPE_STEP,
             "fno/config.py": TAPE_CONFIG.replace("DEFAULT", default)}
    if yaml_text is not None:
        files["configs/run.yaml"] = yaml_text
    return check_project(tmp_path, files)[2][5]


def test_a_field_off_by_default_that_the_yaml_file_leaves_unset_is_wrong(tmp_path):
    f5 = tape_project(tmp_path, "False", "epochs: 40\nlr: 2.0e-3\n")
    assert f5.verdict == WRONG and "off by default" in f5.evidence and "average_grads" in f5.evidence, f5


def test_the_yaml_file_turning_it_on_is_ok(tmp_path):
    f5 = tape_project(tmp_path, "False", "epochs: 40\naverage_grads: true\n")
    assert f5.verdict == OK, f5


def test_a_field_on_by_default_is_ok(tmp_path):
    f5 = tape_project(tmp_path, "True", "epochs: 40\n")
    assert f5.verdict == OK, f5


def test_a_config_file_that_is_not_there_is_not_read_as_empty(tmp_path):
    f5 = tape_project(tmp_path, "False", None)
    assert f5.verdict != WRONG, f5


FIT_TRAIN = Source('''
    """Fraud MLP.  horovodrun -np 4 python train.py [config.json]"""
    import sys

    import numpy as np
    import tensorflow as tf
    import horovod.tensorflow.keras as hvd

    from fraudkit.config import load_config
    from fraudkit.optim import make_optimizer

    cfg = load_config(CONFIG_ARG)
    hvd.init()
    gpus = tf.config.list_physical_devices("GPU")
    if gpus:
        tf.config.set_visible_devices(gpus[hvd.local_rank()], "GPU")
    x = np.random.rand(4096, 20).astype("float32")
    y = (np.random.rand(4096) > 0.9).astype("float32")
    ds = tf.data.Dataset.from_tensor_slices((x, y)).shard(hvd.size(), hvd.rank()).batch(cfg["batch_size"])
    model = tf.keras.Sequential([tf.keras.layers.Dense(64, activation="relu"), tf.keras.layers.Dense(1)])
    model.compile(optimizer=make_optimizer(cfg, cfg["lr"] * hvd.size()), loss="binary_crossentropy")
    callbacks = [hvd.callbacks.BroadcastGlobalVariablesCallback(0), hvd.callbacks.MetricAverageCallback()]
    if hvd.rank() == 0:
        callbacks.append(tf.keras.callbacks.ModelCheckpoint("out/fraud.keras"))
    model.fit(ds, epochs=cfg["epochs"], callbacks=callbacks, verbose=2 if hvd.rank() == 0 else 0)
''')

FIT_CONFIG = '''
    import json

    DEFAULTS = {"lr": 1e-3, "batch_size": 512, "epochs": 8, "optimizer": "adam"}


    def load_config(path=None):
        cfg = dict(DEFAULTS)
        if path:
            with open(path) as fh:
                cfg.update(json.load(fh))
        return cfg
'''

FIT_OPTIM = '''
    import tensorflow as tf
    import horovod.tensorflow.keras as hvd


    def make_optimizer(cfg, lr):
        opt = tf.keras.optimizers.Adam(learning_rate=lr)
        if cfg.get("hvd", False):
            opt = hvd.DistributedOptimizer(opt)
        return opt
'''


def fit_project(tmp_path, config_arg, json_text=None):
    files = {"train.py": FIT_TRAIN.replace("CONFIG_ARG", config_arg), "fraudkit/__init__.py": "",
             "fraudkit/config.py": FIT_CONFIG, "fraudkit/optim.py": FIT_OPTIM}
    if json_text is not None:
        files["conf/prod.json"] = json_text
    return check_project(tmp_path, files)[2][5]


def test_defaults_without_the_key_when_no_file_is_given_is_wrong(tmp_path):
    f5 = fit_project(tmp_path, "sys.argv[1] if len(sys.argv) > 1 else None")
    assert f5.verdict == WRONG and "off by default" in f5.evidence, f5


def test_a_default_file_that_sets_the_key_is_ok(tmp_path):
    f5 = fit_project(tmp_path, 'sys.argv[1] if len(sys.argv) > 1 else "conf/prod.json"', '{"hvd": true}')
    assert f5.verdict == OK, f5


def test_an_update_from_a_file_that_cannot_be_read_is_not_wrong(tmp_path):
    f5 = fit_project(tmp_path, 'sys.argv[1] if len(sys.argv) > 1 else "/etc/fraud/prod.json"')
    assert f5.verdict != WRONG, f5
