import json
import os

import tensorflow as tf
from tensorflow import keras
import horovod.tensorflow.keras as hvd

from lesion.backbones import efficientnet_classifier
from lesion.data import CLASSES, make_dataset
from lesion.schedules import step_decay


class Experiment:
    def __init__(self, cfg):
        self.cfg = cfg
        hvd.init()
        gpus = tf.config.list_physical_devices("GPU")
        for g in gpus:
            tf.config.experimental.set_memory_growth(g, True)
        if gpus:
            tf.config.set_visible_devices(gpus[hvd.local_rank()], "GPU")
        self.is_root = hvd.rank() == 0

    def build_data(self):
        c = self.cfg
        self.train_ds, n_train = make_dataset(c["data_root"], "train", c["image_size"], c["batch_size"],
                                              hvd.size(), hvd.rank(), training=True)
        self.dev_split, n_dev = make_dataset(c["data_root"], "dev", c["image_size"], c["batch_size"],
                                             hvd.size(), hvd.rank(), training=False)
        self.steps = n_train // (c["batch_size"] * hvd.size())
        self.dev_steps = max(1, n_dev // (c["batch_size"] * hvd.size()))

    def callbacks(self, phase, base_lr):
        cbs = [hvd.callbacks.BroadcastGlobalVariablesCallback(0),
               hvd.callbacks.MetricAverageCallback(),
               keras.callbacks.LearningRateScheduler(step_decay(base_lr, self.cfg["decay_every"]))]
        if self.is_root:
            cbs.append(keras.callbacks.ModelCheckpoint(
                os.path.join(self.cfg["out_dir"], f"{phase}-{{epoch:02d}}.weights.h5"),
                save_weights_only=True, monitor="val_accuracy"))
            cbs.append(keras.callbacks.CSVLogger(os.path.join(self.cfg["out_dir"], f"{phase}.csv")))
        return cbs

    def _fit(self, phase, epochs, initial_epoch, base_lr):
        return self.model.fit(self.train_ds, steps_per_epoch=self.steps, epochs=epochs,
                              initial_epoch=initial_epoch, validation_data=self.dev_split,
                              validation_steps=self.dev_steps, callbacks=self.callbacks(phase, base_lr),
                              verbose=2 if self.is_root else 0)

    def run(self):
        c = self.cfg
        if self.is_root:
            os.makedirs(c["out_dir"], exist_ok=True)
        self.build_data()
        self.model, backbone = efficientnet_classifier(len(CLASSES), c["image_size"])
        metrics = ["accuracy", keras.metrics.SparseTopKCategoricalAccuracy(k=2, name="top2")]

        # phase 1: train the new head on a frozen backbone
        backbone.trainable = False
        head_opt = hvd.DistributedOptimizer(keras.optimizers.Adam(c["lr"] * hvd.size()))
        self.model.compile(optimizer=head_opt, loss="sparse_categorical_crossentropy", metrics=metrics)
        self._fit("head", c["head_epochs"], 0, c["lr"])

        # phase 2: unfreeze everything with a smaller learning rate
        backbone.trainable = True
        self.model.compile(optimizer=keras.optimizers.Adam(c["finetune_lr"] * hvd.size()),
                           loss="sparse_categorical_crossentropy", metrics=metrics)
        total = c["head_epochs"] + c["finetune_epochs"]
        history = self._fit("finetune", total, c["head_epochs"], c["finetune_lr"])

        if self.is_root:
            self.model.save(os.path.join(c["out_dir"], "final.keras"))
            with open(os.path.join(c["out_dir"], "summary.json"), "w") as f:
                json.dump({k: v[-1] for k, v in history.history.items()}, f, indent=2)
