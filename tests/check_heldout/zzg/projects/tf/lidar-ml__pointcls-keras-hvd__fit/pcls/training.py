import os

import keras
import horovod.tensorflow.keras as hvd


def compile_model(model, lr):
    opt = hvd.DistributedOptimizer(keras.optimizers.SGD(learning_rate=lr, momentum=0.9, nesterov=True))
    model.compile(optimizer=opt,
                  loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True),
                  metrics=["accuracy"])
    return model


def make_callbacks(scaled_lr, warmup_epochs, steps_per_epoch, out_dir):
    cbs = [
        hvd.callbacks.BroadcastGlobalVariablesCallback(0),
        hvd.callbacks.MetricAverageCallback(),
        hvd.callbacks.LearningRateWarmupCallback(initial_lr=scaled_lr, warmup_epochs=warmup_epochs,
                                                 steps_per_epoch=steps_per_epoch, verbose=0),
        keras.callbacks.ReduceLROnPlateau(monitor="val_loss", factor=0.5, patience=8, min_lr=1e-5),
    ]
    if hvd.rank() == 0:
        os.makedirs(out_dir, exist_ok=True)
        cbs.append(keras.callbacks.ModelCheckpoint(os.path.join(out_dir, "best.keras"),
                                                   monitor="val_accuracy", save_best_only=True))
        cbs.append(keras.callbacks.CSVLogger(os.path.join(out_dir, "history.csv")))
    return cbs
