import os

import keras
import horovod.tensorflow.keras as hvd


def build_optimizer(opt_cfg):
    """Optimizer from the `optimizer:` block of the config, wrapped for Horovod."""
    kwargs = {k: v for k, v in opt_cfg.items() if k != "name"}
    base = keras.optimizers.get({"class_name": opt_cfg["name"], "config": kwargs})
    return hvd.DistributedOptimizer(base)


class SaveBestWeights(keras.callbacks.Callback):
    """Keeps the weights with the lowest `monitor` value and writes them to disk."""

    def __init__(self, out_dir, monitor="val_loss"):
        super().__init__()
        self.out_dir = out_dir
        self.monitor = monitor
        self.best = float("inf")

    def on_epoch_end(self, epoch, logs=None):
        current = (logs or {}).get(self.monitor)
        if current is None or current >= self.best:
            return
        self.best = current
        os.makedirs(self.out_dir, exist_ok=True)
        self.model.save_weights(os.path.join(self.out_dir, "best.weights.h5"))
        with open(os.path.join(self.out_dir, "best_epoch.txt"), "w") as fh:
            fh.write(f"{epoch} {current:.6f}\n")


def standard_callbacks(cfg):
    out = cfg["output_dir"]
    cbs = [
        hvd.callbacks.BroadcastGlobalVariablesCallback(0),
        hvd.callbacks.MetricAverageCallback(),
        keras.callbacks.EarlyStopping(monitor="val_loss", patience=cfg["train"]["patience"],
                                      restore_best_weights=True),
        SaveBestWeights(out),
    ]
    if hvd.rank() == 0:
        cbs.append(keras.callbacks.TensorBoard(log_dir=os.path.join(out, "tb"), update_freq="epoch"))
    return cbs
