import os

import keras
import horovod.tensorflow.keras as hvd


def run_stage(model, cfg, name, train_ds, val_ds, steps, val_steps, epochs, lr):
    """(Re)compile with a fresh Horovod-wrapped optimizer and fit one stage."""
    scaled = lr * hvd.size()
    opt = hvd.DistributedOptimizer(keras.optimizers.Adam(learning_rate=scaled))
    model.compile(optimizer=opt, loss="sparse_categorical_crossentropy", metrics=["accuracy"])
    callbacks = [
        hvd.callbacks.BroadcastGlobalVariablesCallback(0),
        hvd.callbacks.MetricAverageCallback(),
        hvd.callbacks.LearningRateWarmupCallback(initial_lr=scaled, warmup_epochs=cfg.warmup_epochs,
                                                 steps_per_epoch=steps),
    ]
    if hvd.rank() == 0:
        os.makedirs(cfg.out_dir, exist_ok=True)
        callbacks.append(keras.callbacks.ModelCheckpoint(os.path.join(cfg.out_dir, f"{name}_best.keras"),
                                                         monitor="val_accuracy", save_best_only=True))
    return model.fit(train_ds, steps_per_epoch=steps, epochs=epochs, validation_data=val_ds,
                     validation_steps=val_steps, callbacks=callbacks, verbose=2 if hvd.rank() == 0 else 0)
