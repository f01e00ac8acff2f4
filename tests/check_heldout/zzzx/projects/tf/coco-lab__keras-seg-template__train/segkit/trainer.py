import os

import keras
import horovod.tensorflow.keras as hvd

from segkit.models import get_optimizer


class SegTrainer:
    def __init__(self, cfg, model, optimizer=None):
        self.cfg = cfg
        self.model = model
        self.optimizer = optimizer
        self.compile()

    def compile(self):
        # optimizer hyper-parameters always come from the config so runs are reproducible
        self.model.compile(
            optimizer=get_optimizer(self.cfg.optimizer),
            loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True),
            metrics=[keras.metrics.SparseCategoricalAccuracy(name="pix_acc")],
        )

    def callbacks(self):
        t = self.cfg.train
        cbs = [hvd.callbacks.BroadcastGlobalVariablesCallback(0),
               hvd.callbacks.MetricAverageCallback()]
        if hvd.rank() == 0:
            os.makedirs(t.out_dir, exist_ok=True)
            cbs.append(keras.callbacks.ModelCheckpoint(os.path.join(t.out_dir, "best.keras"),
                                                       monitor="val_loss",
                                                       save_best_only=t.save_best_only))
            cbs.append(keras.callbacks.CSVLogger(os.path.join(t.out_dir, "log.csv")))
        return cbs

    def fit(self, train_ds, val_ds, steps, val_steps):
        return self.model.fit(train_ds, steps_per_epoch=steps, epochs=self.cfg.train.epochs,
                              validation_data=val_ds, validation_steps=val_steps,
                              callbacks=self.callbacks(),
                              verbose=1 if hvd.rank() == 0 else 0)
