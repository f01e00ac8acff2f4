"""Training component.

The pipeline imports `train_and_evaluate` from here; for manual runs:
    horovodrun -np 4 python task.py --epochs 10 --output-dir /tmp/out
"""
import json
import logging
import os

import keras
import horovod.tensorflow.keras as hvd

from tabular_hvd import hparams as hparams_lib
from tabular_hvd import dist_utils
from tabular_hvd.data import input_fn
from tabular_hvd.model import TabularDNN, GiniCoefficient


def train_and_evaluate(hp):
    dist_utils.maybe_init_horovod(hp)
    dist_utils.pin_gpu()
    world, rank = hvd.size(), hvd.rank()

    train_ds = input_fn(hp, "train", world, rank)
    eval_ds = input_fn(hp, "eval", world, rank)
    steps_per_epoch = hp.n_rows // (hp.batch_size * world)

    model = TabularDNN(hp)
    scaled_lr = hp.lr * world
    opt = hvd.DistributedOptimizer(keras.optimizers.Adam(learning_rate=scaled_lr))
    model.compile(optimizer=opt, loss="binary_crossentropy",
                  metrics=[keras.metrics.BinaryAccuracy(name="acc"), GiniCoefficient()])

    callbacks = [
        hvd.callbacks.BroadcastGlobalVariablesCallback(0),
        hvd.callbacks.MetricAverageCallback(),
        hvd.callbacks.LearningRateWarmupCallback(initial_lr=scaled_lr, warmup_epochs=hp.warmup_epochs,
                                                 steps_per_epoch=steps_per_epoch, verbose=int(rank == 0)),
    ]
    if dist_utils.is_chief():
        callbacks.append(keras.callbacks.ModelCheckpoint(
            os.path.join(hp.output_dir, "ckpt", "weights.{epoch:02d}.weights.h5"), save_weights_only=True))

    history = model.fit(train_ds, epochs=hp.epochs, steps_per_epoch=steps_per_epoch,
                        validation_data=eval_ds, callbacks=callbacks, verbose=2 if rank == 0 else 0)

    metrics = {k: float(v[-1]) for k, v in history.history.items()}
    if dist_utils.is_chief():
        model.save_weights(os.path.join(hp.output_dir, "final.weights.h5"))
        with open(os.path.join(hp.output_dir, "metrics.json"), "w") as f:
            json.dump(metrics, f)
    return metrics


def main():
    logging.basicConfig(level=logging.INFO)
    hp = hparams_lib.from_args()
    os.makedirs(hp.output_dir, exist_ok=True)
    print(train_and_evaluate(hp))


if __name__ == "__main__":
    main()
