"""Train the CT slice classifier with Horovod.

    horovodrun -np 8 -H n1:4,n2:4 python main.py
"""
import os

import keras
import horovod.tensorflow as hvd_tf
import horovod.tensorflow.keras as hvd

from ctcls import hvd_utils
from ctcls.config import TrainConfig
from ctcls.data import train_input_fn, eval_input_fn
from ctcls.model import build_classifier


def main(cfg: TrainConfig):
    ctx = hvd_utils.setup()
    steps_per_epoch = cfg.train_examples // (cfg.per_replica_batch * hvd.size())

    model = build_classifier(cfg)
    # A functional model owns its weights from construction on, so rank 0's
    # initial weights can be sent before compile; the optimizer slots start at zero.
    hvd_tf.broadcast_variables(model.variables, root_rank=0)

    schedule = keras.optimizers.schedules.CosineDecay(
        initial_learning_rate=0.0,
        warmup_target=cfg.base_lr * hvd.size(),
        warmup_steps=cfg.warmup_epochs * steps_per_epoch,
        decay_steps=(cfg.epochs - cfg.warmup_epochs) * steps_per_epoch)
    optimizer = hvd.DistributedOptimizer(keras.optimizers.AdamW(schedule, weight_decay=1e-4))
    model.compile(optimizer=optimizer,
                  loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True),
                  metrics=[keras.metrics.SparseCategoricalAccuracy(name="acc")])

    if hvd_utils.is_chief():
        os.makedirs(cfg.out_dir, exist_ok=True)
        cfg.dump(os.path.join(cfg.out_dir, "config.json"))

    model.fit(train_input_fn(cfg, ctx),
              steps_per_epoch=steps_per_epoch,
              epochs=cfg.epochs,
              validation_data=eval_input_fn(cfg),
              callbacks=hvd_utils.standard_callbacks(cfg.out_dir),
              verbose=2 if hvd_utils.is_chief() else 0)


if __name__ == "__main__":
    main(TrainConfig())
