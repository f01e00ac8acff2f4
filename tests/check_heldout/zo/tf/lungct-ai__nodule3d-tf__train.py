"""LUNA16 nodule malignancy: 3D CNN, 10-fold CV over the LUNA subsets, Horovod + Keras fit.

usage: horovodrun -np 4 python train.py --config configs/luna.json --fold 3
"""
import argparse
import os

import numpy as np
import tensorflow as tf
import horovod.tensorflow.keras as hvd

from nodule import load_config
from nodule.dataset import load_subsets, make_dataset
from nodule.model import build_nodule_net
from nodule.training import compile_model, make_callbacks
from nodule.tta import auroc, predict_tta

ap = argparse.ArgumentParser()
ap.add_argument("--config", default="configs/luna.json")
ap.add_argument("--fold", type=int, default=None)
ap.add_argument("--epochs", type=int, default=None)
cli = ap.parse_args()
cfg = load_config(cli.config, fold=cli.fold, epochs=cli.epochs)

hvd.init()
gpus = tf.config.experimental.list_physical_devices("GPU")
for gpu in gpus:
    tf.config.experimental.set_memory_growth(gpu, True)
if gpus:
    tf.config.experimental.set_visible_devices(gpus[hvd.local_rank()], "GPU")

fold = cfg["fold"]
train_subsets = [k for k in range(cfg["n_folds"]) if k != fold]
x_train, y_train = load_subsets(cfg["data_dir"], train_subsets)
x_val, y_val = load_subsets(cfg["data_dir"], [fold])
if hvd.rank() == 0:
    print(f"fold {fold}: {len(y_train)} train cubes ({int(y_train.sum())} positive), {len(y_val)} val cubes")

train_ds = make_dataset(x_train, y_train, cfg["batch_size"], hvd.rank(), hvd.size(), True, cfg["seed"])
val_ds = make_dataset(x_val, y_val, cfg["batch_size"], hvd.rank(), hvd.size(), False)
steps_per_epoch = len(y_train) // (cfg["batch_size"] * hvd.size())
# same number of validation batches on every worker
val_steps = max(1, len(y_val) // (cfg["batch_size"] * hvd.size()))

model = compile_model(build_nodule_net(cfg["cube"]), cfg)
fold_dir = os.path.join(cfg["out_dir"], f"fold{fold}")
history = model.fit(train_ds, steps_per_epoch=steps_per_epoch, epochs=cfg["epochs"],
                    validation_data=val_ds.repeat(), validation_steps=val_steps,
                    callbacks=make_callbacks(cfg, fold_dir), verbose=1 if hvd.rank() == 0 else 0)

if hvd.rank() == 0:
    best = int(np.argmin(history.history["val_loss"]))
    print(f"best epoch {best}: val_loss {history.history['val_loss'][best]:.4f} "
          f"val_acc {history.history['val_acc'][best]:.4f}")
    # test-time evaluation of the final weights on the whole held-out subset
    probs = predict_tta(model, x_val)
    print(f"fold {fold} TTA AUROC {auroc(y_val, probs):.4f}")
