import keras
import horovod.tensorflow.keras as hvd

from kc.builders import build_model, build_optimizer
from kc.callbacks import make_callbacks
from kc.data import make_datasets


class Trainer:
    def __init__(self, cfg):
        self.cfg = cfg
        self.train_ds, self.val_ds, self.steps = make_datasets(cfg["data"], hvd.size(), hvd.rank())
        self.model = build_model(cfg["model"])
        lr_scale = hvd.size()
        self.initial_lr = cfg["optimizer"]["learning_rate"] * lr_scale
        opt = build_optimizer(cfg["optimizer"], lr_scale=lr_scale)
        self.model.compile(
            optimizer=hvd.DistributedOptimizer(opt),
            loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True),
            metrics=["accuracy"],
        )

    def train(self):
        t = self.cfg["trainer"]
        return self.model.fit(
            self.train_ds,
            steps_per_epoch=self.steps,
            epochs=t["epochs"],
            validation_data=self.val_ds,
            callbacks=make_callbacks(t, self.initial_lr, self.steps),
            verbose=t.get("verbose", 1) if hvd.rank() == 0 else 0,
        )
