"""Trainer module for the pipeline's Trainer step (TFX style `run_fn`).

The orchestrator imports this file and calls `run_fn(fn_args)` inside every
horovod worker; `python trainer_module.py` does the same from env vars for local runs.
"""
import os
from types import SimpleNamespace

import tensorflow as tf
import horovod.tensorflow.keras as hvd

from tfxlite.config import HParams
from tfxlite import io_utils
from tfxlite.model_builder import build_keras_model
from tfxlite.hooks import WandbLikeLogger
from tfxlite import export


def _pin_gpu():
    gpus = tf.config.list_physical_devices("GPU")
    if gpus:
        tf.config.experimental.set_memory_growth(gpus[hvd.local_rank()], True)
        tf.config.set_visible_devices(gpus[hvd.local_rank()], "GPU")


def run_fn(fn_args):
    """Entry point used by the pipeline. fn_args: train_files, eval_files, serving_model_dir,
    model_run_dir, train_steps, eval_steps, custom_config (dict of HParams overrides)."""
    hvd.init()
    _pin_gpu()
    hp = HParams.from_dict(fn_args.custom_config or {})

    train_ds = io_utils.input_fn(fn_args.train_files, hp.batch_size, hvd.rank(), hvd.size(),
                                 training=True)
    eval_ds = io_utils.input_fn(fn_args.eval_files, hp.batch_size, hvd.rank(), hvd.size(),
                                training=False)

    model = build_keras_model(hp)
    opt = tf.keras.optimizers.Adam(learning_rate=hp.learning_rate * hvd.size())
    opt = hvd.DistributedOptimizer(opt)
    model.compile(optimizer=opt, loss=tf.keras.losses.BinaryCrossentropy(from_logits=True),
                  metrics=[tf.keras.metrics.BinaryAccuracy(threshold=0.0)])

    steps_per_epoch = max(1, fn_args.train_steps // hp.epochs // hvd.size())
    callbacks = [
        hvd.callbacks.BroadcastGlobalVariablesCallback(0),
        hvd.callbacks.MetricAverageCallback(),
        hvd.callbacks.LearningRateWarmupCallback(initial_lr=hp.learning_rate * hvd.size(),
                                                 warmup_epochs=hp.warmup_epochs,
                                                 steps_per_epoch=steps_per_epoch),
    ]
    if hvd.rank() == 0:
        callbacks.append(tf.keras.callbacks.TensorBoard(fn_args.model_run_dir))
        callbacks.append(WandbLikeLogger(project=hp.project, config=hp.to_dict()))

    model.fit(train_ds, epochs=hp.epochs, steps_per_epoch=steps_per_epoch,
              validation_data=eval_ds, validation_steps=max(1, fn_args.eval_steps // hvd.size()),
              callbacks=callbacks, verbose=2 if hvd.rank() == 0 else 0)

    if hvd.rank() == 0:
        export.save_for_serving(model, fn_args.serving_model_dir)


if __name__ == "__main__":
    data_dir = os.environ.get("DATA_DIR", "data")
    run_fn(SimpleNamespace(
        train_files=os.path.join(data_dir, "train-*.tfrecord"),
        eval_files=os.path.join(data_dir, "eval-*.tfrecord"),
        serving_model_dir=os.environ.get("SERVING_DIR", "serving_model"),
        model_run_dir=os.environ.get("RUN_DIR", "model_run"),
        train_steps=int(os.environ.get("TRAIN_STEPS", 10000)),
        eval_steps=int(os.environ.get("EVAL_STEPS", 500)),
        custom_config=None,
    ))
