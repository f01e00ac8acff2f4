import math
import os

import keras
import numpy as np
import pandas as pd
import tensorflow as tf
import horovod.tensorflow.keras as hvd

from . import data, model as tabnet_model
from .callbacks import default_callbacks


def _setup():
    hvd.init()
    gpus = tf.config.list_physical_devices("GPU")
    for g in gpus:
        tf.config.experimental.set_memory_growth(g, True)
    if gpus:
        tf.config.set_visible_devices(gpus[hvd.local_rank()], "GPU")


def train_model(df, cfg):
    """Entry point used by the pipeline (pipeline.py) - call under horovodrun/mpirun."""
    _setup()
    dcfg, mcfg, tcfg = cfg["data"], cfg["model"], cfg["train"]
    df, numeric, vocab = data.encode_frame(df, dcfg["categorical"], dcfg["target"])
    trn, tst = data.train_test_frames(df, dcfg["test_size"], dcfg["seed"])
    scaler = data.fit_scaler(trn, numeric)

    train_ds = data.to_dataset(trn, numeric, dcfg["categorical"], dcfg["target"], scaler,
                               tcfg["batch_size"], hvd.rank(), hvd.size(), training=True)
    valid_ds = data.to_dataset(tst, numeric, dcfg["categorical"], dcfg["target"], scaler,
                               tcfg["batch_size"], hvd.rank(), hvd.size(), training=False)
    steps = math.ceil(len(trn) / tcfg["batch_size"] / hvd.size())

    net, encoder = tabnet_model.build(len(numeric), vocab, mcfg)
    opt = keras.optimizers.Adam(learning_rate=tcfg["lr"] * hvd.size())
    net.compile(optimizer=hvd.DistributedOptimizer(opt),
                loss=keras.losses.BinaryCrossentropy(from_logits=True),
                metrics=[keras.metrics.AUC(from_logits=True, name="auc")])

    hist = net.fit(train_ds, epochs=tcfg["epochs"], steps_per_epoch=steps, validation_data=valid_ds,
                   callbacks=default_callbacks(tcfg), verbose=1 if hvd.rank() == 0 else 0)

    if hvd.rank() == 0:
        # global feature importance = mean attention mask over one batch of the test split
        (xb, _), = valid_ds.take(1)
        net(xb, training=False)
        imp = np.mean([m.numpy().mean(0) for m in encoder.last_masks], axis=0)
        os.makedirs(os.path.dirname(tcfg["importance_csv"]), exist_ok=True)
        pd.Series(imp).to_csv(tcfg["importance_csv"])
    return hist.history
