import os

import keras
import horovod.tensorflow.keras as hvd

from .optim import make_optimizer


class MaskedTokenAccuracy(keras.metrics.Metric):
    def __init__(self, name="tok_acc", **kw):
        super().__init__(name=name, **kw)
        self.correct = self.add_weight(name="correct", initializer="zeros")
        self.total = self.add_weight(name="total", initializer="zeros")

    def update_state(self, y_true, y_pred, sample_weight=None):
        mask = keras.ops.cast(keras.ops.not_equal(y_true, 0), "float32")
        hit = keras.ops.cast(keras.ops.equal(keras.ops.cast(y_true, "int32"),
                                             keras.ops.cast(keras.ops.argmax(y_pred, -1), "int32")), "float32")
        self.correct.assign_add(keras.ops.sum(hit * mask))
        self.total.assign_add(keras.ops.sum(mask))

    def result(self):
        return self.correct / keras.ops.maximum(self.total, 1.0)


def compile_model(model, cfg, optimizer=None):
    optimizer = optimizer or make_optimizer(cfg["optim"], scale=hvd.size())
    model.compile(optimizer=optimizer,
                  loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True, ignore_class=0),
                  metrics=[MaskedTokenAccuracy()])
    return model


def make_callbacks(cfg):
    t = cfg["train"]
    cbs = [hvd.callbacks.BroadcastGlobalVariablesCallback(0),
           keras.callbacks.EarlyStopping(monitor="val_loss", patience=t["patience"], restore_best_weights=True)]
    if hvd.rank() == 0:
        os.makedirs(t["out_dir"], exist_ok=True)
        cbs.append(keras.callbacks.ModelCheckpoint(os.path.join(t["out_dir"], "tagger.keras"),
                                                   monitor="val_loss", save_best_only=True))
    return cbs
