import os

import keras
import horovod.tensorflow.keras as hvd

from .env import is_chief

CALLBACK_FACTORIES = {}


def register(name):
    def deco(fn):
        CALLBACK_FACTORIES[name] = fn
        return fn
    return deco


@register("sync")
def _sync(cfg):
    return [hvd.callbacks.BroadcastGlobalVariablesCallback(0), hvd.callbacks.MetricAverageCallback()]


@register("checkpoint")
def _checkpoint(cfg):
    if not is_chief():
        return []
    os.makedirs(cfg.output_dir, exist_ok=True)
    return [keras.callbacks.ModelCheckpoint(os.path.join(cfg.output_dir, "intent-{epoch:02d}.keras"))]


@register("early_stop")
def _early_stop(cfg):
    return [keras.callbacks.EarlyStopping(patience=cfg.patience, restore_best_weights=True)]


def build_callbacks(cfg):
    out = []
    for name in cfg.callbacks:
        out.extend(CALLBACK_FACTORIES[name](cfg))
    return out
