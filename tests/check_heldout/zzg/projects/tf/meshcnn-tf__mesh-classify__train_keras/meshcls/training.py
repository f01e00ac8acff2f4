import os

import keras
import horovod.tensorflow.keras as hvd


def compile_for_training(model, cfg):
    opt = keras.optimizers.Adam(learning_rate=cfg["lr"], beta_1=0.9, beta_2=0.999)
    model.compile(optimizer=hvd.DistributedOptimizer(opt),
                  loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True),
                  metrics=["accuracy"])
    return model


def callbacks_for(cfg, is_chief):
    cbs = [
        hvd.callbacks.BroadcastGlobalVariablesCallback(0),
        hvd.callbacks.MetricAverageCallback(),
        keras.callbacks.ModelCheckpoint(os.path.join(cfg["checkpoint_dir"], "best.weights.h5"),
                                        monitor="val_accuracy", mode="max", save_best_only=True,
                                        save_weights_only=True),
    ]
    if is_chief:
        os.makedirs(cfg["log_dir"], exist_ok=True)
        cbs.append(keras.callbacks.TensorBoard(cfg["log_dir"]))
    return cbs
