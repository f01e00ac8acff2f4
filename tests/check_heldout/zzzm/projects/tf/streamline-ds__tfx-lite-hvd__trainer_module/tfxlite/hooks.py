"""A W&B-like run logger. Offline: appends to ./wandb_offline/<project>.log."""
import json
import os

import tensorflow as tf


class WandbLikeLogger(tf.keras.callbacks.Callback):
    def __init__(self, project, config=None, log_dir="wandb_offline"):
        super().__init__()
        os.makedirs(log_dir, exist_ok=True)
        self.path = os.path.join(log_dir, project + ".log")
        with open(self.path, "a") as f:
            f.write(json.dumps({"config": config}) + "\n")

    def on_epoch_end(self, epoch, logs=None):
        with open(self.path, "a") as f:
            f.write(json.dumps({"epoch": epoch, **{k: float(v) for k, v in (logs or {}).items()}})
                    + "\n")
