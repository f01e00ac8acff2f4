import keras
import horovod.tensorflow.keras as hvd


def build_optimizer(cfg):
    """AdamW with the lr scaled to the number of workers (per-worker batch is fixed)."""
    return keras.optimizers.AdamW(learning_rate=cfg.learning_rate * hvd.size(), weight_decay=1e-4)
