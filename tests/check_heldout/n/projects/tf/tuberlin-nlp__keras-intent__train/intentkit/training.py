import os

import keras
import horovod.tensorflow.keras as hvd


def compile_model(model, cfg):
    """Adam at cfg.lr per worker x number of workers, gradients averaged by Horovod."""
    opt = keras.optimizers.Adam(learning_rate=cfg.lr * hvd.size())
    model.compile(optimizer=hvd.DistributedOptimizer(opt),
                  loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True),
                  metrics=["accuracy"])
    return model


def callbacks_for(cfg, is_chief):
    cbs = [
        # rank 0's initial weights -> everyone, at the start of fit
        hvd.callbacks.BroadcastGlobalVariablesCallback(root_rank=0),
        hvd.callbacks.MetricAverageCallback(),
        hvd.callbacks.LearningRateWarmupCallback(initial_lr=cfg.lr * hvd.size(),
                                                 warmup_epochs=cfg.warmup_epochs, verbose=1 if is_chief else 0),
        keras.callbacks.EarlyStopping(monitor="val_loss", patience=4),
    ]
    if is_chief:
        os.makedirs(cfg.output_dir, exist_ok=True)
        cbs += [keras.callbacks.ModelCheckpoint(os.path.join(cfg.output_dir, "best.weights.h5"),
                                                save_best_only=True, save_weights_only=True),
                keras.callbacks.CSVLogger(os.path.join(cfg.output_dir, "history.csv"))]
    return cbs
