"""Train a subclassed keras classifier with model.fit on N horovod workers.

    horovodrun -np 4 python train.py --model wide_cnn --epochs 40
"""
import os

import keras
import tensorflow as tf
import horovod.tensorflow as hvd
from horovod.tensorflow.keras import callbacks as hvd_callbacks

from kr.options import parse_args
from kr.data import make_datasets
from kr.schedules import WarmupCosineDecay
from kr.metrics import MacroRecall
from kr.models import get_model


def main():
    args = parse_args()
    hvd.init()

    gpus = tf.config.list_physical_devices("GPU")
    for g in gpus:
        tf.config.experimental.set_memory_growth(g, True)
    if gpus:
        tf.config.set_visible_devices(gpus[hvd.local_rank()], "GPU")

    train_ds, val_ds, steps_per_epoch = make_datasets(args, hvd.rank(), hvd.size())

    model = get_model(args.model, args.num_classes)
    lr = WarmupCosineDecay(peak_lr=args.base_lr * hvd.size(),
                           warmup_steps=args.warmup_epochs * steps_per_epoch,
                           total_steps=args.epochs * steps_per_epoch)
    model.compile(
        optimizer=keras.optimizers.Adam(learning_rate=lr),
        loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True),
        metrics=["accuracy", MacroRecall(args.num_classes)],
    )

    callbacks = [
        hvd_callbacks.BroadcastGlobalVariablesCallback(0),
        hvd_callbacks.MetricAverageCallback(),
    ]
    if hvd.rank() == 0:
        os.makedirs(args.model_dir, exist_ok=True)
        callbacks.append(keras.callbacks.ModelCheckpoint(
            os.path.join(args.model_dir, "ckpt-{epoch:03d}.weights.h5"), save_weights_only=True))
        callbacks.append(keras.callbacks.CSVLogger(os.path.join(args.model_dir, "history.csv")))

    model.fit(train_ds, epochs=args.epochs, steps_per_epoch=steps_per_epoch,
              validation_data=val_ds, callbacks=callbacks,
              verbose=args.verbose if hvd.rank() == 0 else 0)

    if hvd.rank() == 0:
        # the subclass has no get_config, keep weights only
        model.save_weights(os.path.join(args.model_dir, "final.weights.h5"))


if __name__ == "__main__":
    main()
