import os

import keras


def default_callbacks(cfg):
    """Checkpointing, TensorBoard and early LR decay shared by all GC-Net experiments."""
    os.makedirs(os.path.join(cfg.out_dir, "weights"), exist_ok=True)
    return [
        keras.callbacks.ModelCheckpoint(os.path.join(cfg.out_dir, "weights", "gcnet_{epoch:02d}.weights.h5"),
                                        save_weights_only=True, save_best_only=False),
        keras.callbacks.TensorBoard(log_dir=os.path.join(cfg.out_dir, "tb"), update_freq=100),
        keras.callbacks.ReduceLROnPlateau(monitor="val_epe", mode="min", factor=0.5, patience=4),
    ]
