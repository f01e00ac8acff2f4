import numpy as np
import keras
import horovod.tensorflow.keras as hvd

from .callbacks import make_callbacks
from .data import load
from .model import wide_resnet


class KerasTrainer:
    def __init__(self, cfg):
        self.cfg = cfg
        self.train_ds, self.test_ds, self.steps, self.num_classes = load(cfg.data, cfg.batch_size,
                                                                         hvd.size(), hvd.rank())
        self.scaled_lr = cfg.base_lr * hvd.size()
        self.model = wide_resnet(self.num_classes, width=cfg.width, wd=cfg.weight_decay)
        opt = keras.optimizers.SGD(learning_rate=self.scaled_lr, momentum=0.9, nesterov=True)
        self.model.compile(optimizer=hvd.DistributedOptimizer(opt),
                           loss="sparse_categorical_crossentropy", metrics=["accuracy"])

    def fit(self):
        return self.model.fit(self.train_ds, steps_per_epoch=self.steps, epochs=self.cfg.epochs,
                              validation_data=self.test_ds,
                              callbacks=make_callbacks(self.cfg, self.scaled_lr, self.steps),
                              verbose=2 if hvd.rank() == 0 else 0)

    def evaluate(self):
        loss, acc = self.model.evaluate(self.test_ds, verbose=0)
        # each worker holds an equal 1/N of the test set
        return [float(v) for v in hvd.allreduce(np.array([loss, acc], dtype="float32"), name="final_eval")]
