"""SIIM-ISIC melanoma -- 5-fold CV with Keras + Horovod.

    horovodrun -np 4 python train.py
"""
import os

import numpy as np
import tensorflow as tf
import horovod.tensorflow.keras as hvd

hvd.init()
gpus = tf.config.experimental.list_physical_devices("GPU")
for gpu in gpus:
    tf.config.experimental.set_memory_growth(gpu, True)
if gpus:
    tf.config.experimental.set_visible_devices(gpus[hvd.local_rank()], "GPU")

import keras  # noqa: E402
from utils.callbacks import build_callbacks  # noqa: E402
from utils.config import Config  # noqa: E402
from utils.data import fold_indices, load_arrays, make_dataset  # noqa: E402
from utils.model import build_model  # noqa: E402
from utils.seed import class_balance, seed_everything  # noqa: E402

cfg = Config()
seed_everything(cfg.seed)
VERBOSE = 1 if hvd.rank() == 0 else 0
x_all, y_all = load_arrays(cfg)
oof = np.zeros(len(y_all), dtype="float32")

for fold in cfg.run_folds:
    keras.backend.clear_session()
    tr_idx, va_idx = fold_indices(len(y_all), cfg.folds, fold, cfg.seed)
    train_ds = make_dataset(x_all[tr_idx], y_all[tr_idx], cfg.batch_size, hvd.size(), hvd.rank(), True)
    valid_ds = make_dataset(x_all[va_idx], y_all[va_idx], cfg.batch_size * 2, hvd.size(), hvd.rank(), False)
    steps_per_epoch = len(tr_idx) // (cfg.batch_size * hvd.size())

    model = build_model(cfg.img_size)
    opt = keras.optimizers.Adam(learning_rate=cfg.lr * hvd.size())
    opt = hvd.DistributedOptimizer(opt)
    model.compile(optimizer=opt,
                  loss=keras.losses.BinaryCrossentropy(label_smoothing=cfg.label_smoothing),
                  metrics=["accuracy"])
    model.fit(train_ds, steps_per_epoch=steps_per_epoch, epochs=cfg.epochs, validation_data=valid_ds,
              class_weight=class_balance(y_all[tr_idx]),
              callbacks=build_callbacks(cfg, fold, VERBOSE), verbose=VERBOSE)

    if hvd.rank() == 0:
        # OOF on the whole held-out fold, rank 0 only
        oof[va_idx] = model.predict(np.asarray(x_all[va_idx]) / 255.0, batch_size=256, verbose=0).ravel()
        acc = float(np.mean((oof[va_idx] > 0.5) == (y_all[va_idx] > 0.5)))
        print(f"fold {fold}: OOF accuracy {acc:.4f}", flush=True)

if hvd.rank() == 0:
    np.save(os.path.join(cfg.out_dir, "oof.npy"), oof)
