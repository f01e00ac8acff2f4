import os

import keras


def checkpoint_callbacks(out_dir, monitor="val_accuracy"):
    os.makedirs(out_dir, exist_ok=True)
    return [
        keras.callbacks.ModelCheckpoint(os.path.join(out_dir, "epoch{epoch:03d}.weights.h5"),
                                        save_weights_only=True),
        keras.callbacks.ModelCheckpoint(os.path.join(out_dir, "best.keras"), monitor=monitor,
                                        save_best_only=True),
    ]
