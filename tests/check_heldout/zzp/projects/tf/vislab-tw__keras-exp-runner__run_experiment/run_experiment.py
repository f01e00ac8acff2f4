"""Run one experiment from a yaml config:  horovodrun -np 4 python run_experiment.py cfgs/fmnist.yaml -o lr=0.004"""
import os

import keras
import tensorflow as tf
import horovod.tensorflow.keras as hvd

from runner import cfg as cfglib
from runner.data import datasets
from runner.hooks import build_callbacks
from runner.model_zoo import small_cnn


class Experiment:
    def __init__(self, cfg):
        self.cfg = cfg
        hvd.init()
        gpus = tf.config.experimental.list_physical_devices("GPU")
        if gpus:
            tf.config.experimental.set_visible_devices(gpus[hvd.local_rank()], "GPU")
            tf.config.experimental.set_memory_growth(gpus[hvd.local_rank()], True)
        self.exp_dir = cfglib.experiment_dir(cfg, 0)
        if hvd.rank() == 0:
            os.makedirs(self.exp_dir, exist_ok=True)

    def build(self):
        model = small_cnn()
        opt = hvd.DistributedOptimizer(keras.optimizers.Adam(learning_rate=self.cfg["lr"]))
        model.compile(opt, loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True), metrics=["accuracy"])
        return model

    def run(self):
        train, val = datasets(self.cfg, hvd.size(), hvd.rank())
        model = self.build()
        hist = model.fit(train, validation_data=val, epochs=self.cfg["epochs"],
                         callbacks=build_callbacks(self.cfg, self.exp_dir),
                         verbose=2 if hvd.rank() == 0 else 0)
        if hvd.rank() == 0:
            best = max(hist.history["val_accuracy"])
            print(f"[{self.cfg['name']}] best val_accuracy {best:.4f} -> {self.exp_dir}")


if __name__ == "__main__":
    Experiment(cfglib.parse()).run()
