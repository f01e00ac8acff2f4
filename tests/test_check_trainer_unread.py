"""The whole training in a Trainer class of a module that is not there: the script builds the model and the
optimizer, hands both to `GalaxyTrainer(model, optimizer, cfg)` and calls `trainer.fit(...)`. Whether that
code writes a checkpoint, or averages what it logs, is not seen: steps 7 and 8 are "cannot tell", not
missing. A Keras model from the same absent module, compiled and fit by the script itself, is trained in the
code read: no checkpoint there is missing.

Written from scratch for these tests: flat entry scripts whose `galkit` package is not at hand."""
import textwrap

from hvdkit.check import MISSING, UNKNOWN
from hvdkit.check.static import analyze

HEAD = '''
    """Galaxy morphology VAE.  horovodrun -np 4 python train.py"""
    import tensorflow as tf
    import horovod.tensorflow.keras as hvd

    from galkit.data import galaxy_datasets
    from galkit.models import ConvVAE
    from galkit.training import GalaxyTrainer

    hvd.init()
    gpus = tf.config.list_physical_devices("GPU")
    if gpus:
        tf.config.set_visible_devices(gpus[hvd.local_rank()], "GPU")
    train_ds, val_ds = galaxy_datasets("data/galaxies", 64, hvd.rank(), hvd.size())
    model = ConvVAE(latent_dim=32)
    optimizer = tf.keras.optimizers.Adam(learning_rate=1e-3 * hvd.size())
'''

TRAINER = HEAD + '''
    trainer = GalaxyTrainer(model, optimizer, epochs=40)
    trainer.fit(train_ds, val_ds)
'''

KERAS = HEAD + '''
    model.compile(optimizer=hvd.DistributedOptimizer(optimizer), loss="mse")
    model.fit(train_ds, validation_data=val_ds, epochs=40,
              callbacks=[hvd.callbacks.BroadcastGlobalVariablesCallback(0),
                         hvd.callbacks.MetricAverageCallback()], verbose=2 if hvd.rank() == 0 else 0)
'''


def check(tmp_path, text):
    path = tmp_path / "train.py"
    path.write_text(textwrap.dedent(text).lstrip("\n"))
    findings, _, _ = analyze(str(path))
    return findings


def test_a_trainer_of_an_absent_module_leaves_checkpoint_and_metrics_untold(tmp_path):
    findings = check(tmp_path, TRAINER)
    assert findings[7].verdict == UNKNOWN and "GalaxyTrainer" in findings[7].evidence, findings[7]
    assert findings[8].verdict == UNKNOWN, findings[8]


def test_keras_fit_in_the_script_with_no_checkpoint_is_missing_one(tmp_path):
    assert check(tmp_path, KERAS)[7].verdict == MISSING
