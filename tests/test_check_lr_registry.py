"""Step 4: an optimizer built by a lambda of a registry (`OPTIMIZERS[name](cfg, cfg["lr"] * scale)` over
`{"adam": lambda o, lr: keras.optimizers.Adam(learning_rate=lr), ...}`). The walk does not know which lambda
a key picks, so the lambda's `lr` is bound by no call it follows: the LR is "cannot tell", never "not scaled".
The same project building its optimizer directly with the unscaled LR is still flagged.

Written from scratch for these tests: a Keras tagger project with its optimizer registry in a module."""

from hvdkit.check import MISSING, UNKNOWN

from crash_scripts import check_project

ENTRY = '''
    """Sequence tagger.  horovodrun -np 4 python train.py"""
    import numpy as np
    import keras
    import horovod.tensorflow.keras as hvd

    from tagger.optim import make_optimizer

    CFG = {"optim": {"name": "adam", "lr": 1e-3}, "epochs": 3}

    hvd.init()
    x = np.random.default_rng(0).integers(1, 500, size=(4000, 40))
    y = (x % 7).astype("int32")
    x, y = x[hvd.rank()::hvd.size()], y[hvd.rank()::hvd.size()]
    model = keras.Sequential([keras.layers.Embedding(500, 32), keras.layers.Dense(7)])
    opt = {build}
    model.compile(optimizer=hvd.DistributedOptimizer(opt),
                  loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True))
    callbacks = [hvd.callbacks.BroadcastGlobalVariablesCallback(0), hvd.callbacks.MetricAverageCallback()]
    if hvd.rank() == 0:
        callbacks.append(keras.callbacks.ModelCheckpoint("tagger.keras"))
    model.fit(x, y, batch_size=64, epochs=CFG["epochs"], callbacks=callbacks, verbose=2 if hvd.rank() == 0 else 0)
'''

OPTIM = '''
    import keras

    OPTIMIZERS = {
        "adam": lambda o, lr: keras.optimizers.Adam(learning_rate=lr),
        "sgd": lambda o, lr: keras.optimizers.SGD(learning_rate=lr, momentum=o.get("momentum", 0.9)),
    }


    def make_optimizer(ocfg, scale=1.0):
        return OPTIMIZERS[ocfg["name"]](ocfg, ocfg["lr"] * scale)
'''


def step4(tmp_path, build):
    files = {"train.py": ENTRY.replace("{build}", build), "tagger/__init__.py": "", "tagger/optim.py": OPTIM}
    findings = check_project(tmp_path, files, script="train.py")[2]
    return findings[4]


def test_an_lr_handed_to_a_registrys_lambda_cannot_be_told(tmp_path):
    f = step4(tmp_path, 'make_optimizer(CFG["optim"], scale=hvd.size())')
    assert f.verdict == UNKNOWN and "parameter `lr`" in f.evidence, f


def test_an_optimizer_built_directly_with_the_unscaled_lr_is_missing_the_scaling(tmp_path):
    f = step4(tmp_path, 'keras.optimizers.Adam(learning_rate=CFG["optim"]["lr"])')
    assert f.verdict == MISSING, f
