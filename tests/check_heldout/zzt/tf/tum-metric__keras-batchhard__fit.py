import argparse

import numpy as np
import tensorflow as tf
import keras
import horovod.tensorflow.keras as hvd

from metric import Config
from metric.callbacks import build_callbacks
from metric.data import pk_dataset
from metric.model import batch_hard_triplet, embedding_model

hvd.init()
gpus = tf.config.list_physical_devices("GPU")
for g in gpus:
    tf.config.experimental.set_memory_growth(g, True)
if gpus:
    tf.config.set_visible_devices(gpus[hvd.local_rank()], "GPU")

parser = argparse.ArgumentParser()
parser.add_argument("--data", default=Config.data)
parser.add_argument("--epochs", type=int, default=Config.epochs)
parser.add_argument("--out-dir", default=Config.out_dir)
cli = parser.parse_args()
cfg = Config(data=cli.data, epochs=cli.epochs, out_dir=cli.out_dir)

blob = np.load(cfg.data)
x_train, y_train = blob["x_train"], blob["y_train"]
batch = cfg.classes_per_batch * cfg.samples_per_class
steps_per_epoch = len(y_train) // batch // hvd.size()
train_ds = pk_dataset(x_train, y_train, cfg.classes_per_batch, cfg.samples_per_class, seed=1234 + hvd.rank())

model = embedding_model(x_train.shape[1:], cfg.embedding_dim)
opt = keras.optimizers.Adam(learning_rate=cfg.lr * hvd.size())
model.compile(optimizer=hvd.DistributedOptimizer(opt), loss=batch_hard_triplet(cfg.margin))

model.fit(train_ds, steps_per_epoch=steps_per_epoch, epochs=cfg.epochs,
          callbacks=build_callbacks(cfg, steps_per_epoch, blob["x_test"], blob["y_test"]),
          verbose=2 if hvd.rank() == 0 else 0)
