import os

import horovod.tensorflow as hvd
import keras


def extra_callbacks(cfg):
    """Learning-rate warm-up on every worker; checkpoints and TensorBoard on the first one."""
    cbs = [
        hvd.callbacks.LearningRateWarmupCallback(initial_lr=cfg["lr"], warmup_epochs=cfg["warmup_epochs"]),
        keras.callbacks.ReduceLROnPlateau(monitor="val_loss", factor=0.5, patience=3, min_lr=1e-6),
    ]
    if hvd.rank() == 0:
        os.makedirs(cfg["out_dir"], exist_ok=True)
        cbs.append(keras.callbacks.ModelCheckpoint(os.path.join(cfg["out_dir"], "nowcast.keras"),
                                                   monitor="val_loss", save_best_only=True))
        cbs.append(keras.callbacks.TensorBoard(os.path.join(cfg["out_dir"], "tb")))
    return cbs
