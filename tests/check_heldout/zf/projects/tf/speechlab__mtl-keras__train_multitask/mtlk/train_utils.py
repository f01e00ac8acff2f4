import os

import horovod.tensorflow.keras as hvd
import keras


def compile_model(model, losses, loss_weights, metrics, lr, clipnorm=None):
    kw = {"learning_rate": lr}
    if clipnorm:
        kw["clipnorm"] = clipnorm
    opt = hvd.DistributedOptimizer(keras.optimizers.Adam(**kw))
    model.compile(optimizer=opt, loss=losses, loss_weights=loss_weights, metrics=metrics)
    return model


def callbacks(run_dir, monitor="val_loss", patience=8):
    os.makedirs(run_dir, exist_ok=True)
    cbs = [
        hvd.callbacks.BroadcastGlobalVariablesCallback(0),
        hvd.callbacks.MetricAverageCallback(),
        keras.callbacks.ReduceLROnPlateau(monitor=monitor, factor=0.5, patience=patience // 2),
        keras.callbacks.EarlyStopping(monitor=monitor, patience=patience, restore_best_weights=True),
        keras.callbacks.ModelCheckpoint(os.path.join(run_dir, "best.keras"), monitor=monitor,
                                        save_best_only=True),
    ]
    if hvd.rank() == 0:
        cbs.append(keras.callbacks.TensorBoard(os.path.join(run_dir, "tb")))
    return cbs
