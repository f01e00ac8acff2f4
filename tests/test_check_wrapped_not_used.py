"""Step 5: the wrapped optimizer is made and never used. The entry wraps `make_optimizer(...)` in
hvd.DistributedOptimizer but calls `compile_model(model, cfg)` without it, and compile_model falls back to
`optimizer or make_optimizer(cfg)`, a plain optimizer from a registry of lambdas: fit applies each rank's own
gradients. Handing the wrapped optimizer in is right.

Written from scratch for these tests: a Keras tagger project with its compile helper and registry in modules."""

from hvdkit.check import FLAGGED, OK

from crash_scripts import check_project

ENTRY = '''
    """Sequence tagger.  horovodrun -np 4 python train.py"""
    import numpy as np
    import keras
    import horovod.tensorflow.keras as hvd

    from tagger.fit_utils import compile_model
    from tagger.optim import make_optimizer

    CFG = {"optim": {"name": "adam", "lr": 1e-3}, "epochs": 3}

    hvd.init()
    x = np.random.default_rng(0).integers(1, 500, size=(4000, 40))
    y = (x % 7).astype("int32")
    x, y = x[hvd.rank()::hvd.size()], y[hvd.rank()::hvd.size()]
    model = keras.Sequential([keras.layers.Embedding(500, 32), keras.layers.Dense(7)])
    opt = hvd.DistributedOptimizer(make_optimizer(CFG["optim"], scale=hvd.size()))
    model = compile_model(model, CFG{handed})
    callbacks = [hvd.callbacks.BroadcastGlobalVariablesCallback(0), hvd.callbacks.MetricAverageCallback()]
    if hvd.rank() == 0:
        callbacks.append(keras.callbacks.ModelCheckpoint("tagger.keras"))
    model.fit(x, y, batch_size=64, epochs=CFG["epochs"], callbacks=callbacks, verbose=2 if hvd.rank() == 0 else 0)
'''

FIT_UTILS = '''
    import keras
    import horovod.tensorflow.keras as hvd

    from .optim import make_optimizer


    def compile_model(model, cfg, optimizer=None):
        optimizer = optimizer or make_optimizer(cfg["optim"], scale=hvd.size())
        model.compile(optimizer=optimizer, loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True))
        return model
'''

OPTIM = '''
    import keras

    OPTIMIZERS = {
        "adam": lambda o, lr: keras.optimizers.Adam(learning_rate=lr),
        "sgd": lambda o, lr: keras.optimizers.SGD(learning_rate=lr, momentum=0.9),
    }


    def make_optimizer(ocfg, scale=1.0):
        return OPTIMIZERS[ocfg["name"]](ocfg, ocfg["lr"] * scale)
'''


def step5(tmp_path, handed):
    files = {"train.py": ENTRY.replace("{handed}", handed), "tagger/__init__.py": "",
             "tagger/fit_utils.py": FIT_UTILS, "tagger/optim.py": OPTIM}
    findings = check_project(tmp_path, files, script="train.py")[2]
    return findings[5]


def test_a_wrapped_optimizer_never_handed_to_compile_is_wrong(tmp_path):
    f = step5(tmp_path, "")
    assert f.verdict in FLAGGED and "not wrapped" in f.evidence, f


def test_the_wrapped_optimizer_handed_to_compile_is_ok(tmp_path):
    f = step5(tmp_path, ", optimizer=opt")
    assert f.verdict == OK, f
