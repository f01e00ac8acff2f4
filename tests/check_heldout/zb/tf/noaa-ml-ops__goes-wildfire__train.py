"""Active-fire segmentation on GOES-16 ABI tiles (bands 1-3, 5-7), TFRecord shards written by the ingest job.

    horovodrun -np 8 -H fire-a100-1:4,fire-a100-2:4 python train.py --config configs/goes16.yaml
"""
import argparse
import os
import time

import keras
import tensorflow as tf
import horovod.tensorflow.keras as hvd

from firenet.callbacks import build_callbacks
from firenet.config import load_config
from firenet.model import FireNet
from firenet.pipeline import make_dataset

hvd.init()
gpus = tf.config.list_physical_devices("GPU")
for g in gpus:
    tf.config.experimental.set_memory_growth(g, True)
if gpus:
    tf.config.set_visible_devices(gpus[hvd.local_rank()], "GPU")

parser = argparse.ArgumentParser()
parser.add_argument("--config", default="configs/goes16.yaml")
parser.add_argument("--run-dir", default=None)
args = parser.parse_args()
cfg = load_config(args.config)
run_dir = args.run_dir or os.path.join(cfg["output_root"], time.strftime("%Y%m%d-%H%M"))

train_ds = make_dataset(cfg["train_pattern"], cfg["batch_size"], training=True)
val_ds = make_dataset(cfg["val_pattern"], cfg["batch_size"], training=False)
steps_per_epoch = cfg["train_records"] // (cfg["batch_size"] * hvd.size())

model = FireNet(width=cfg["width"])
model.build((None, cfg["tile"], cfg["tile"], cfg["bands"]))
# more GPUs -> bigger effective batch -> bigger learning rate
lr = cfg["lr"] * hvd.local_size()
opt = hvd.DistributedOptimizer(keras.optimizers.Adam(learning_rate=lr))
model.compile(optimizer=opt)

callbacks = build_callbacks(cfg, run_dir, lr, steps_per_epoch)
model.fit(train_ds, epochs=cfg["epochs"], steps_per_epoch=steps_per_epoch, validation_data=val_ds,
          validation_steps=cfg["val_records"] // cfg["batch_size"], callbacks=callbacks,
          verbose=2 if hvd.rank() == 0 else 0)
if hvd.rank() == 0:
    model.save_weights(os.path.join(run_dir, "firenet_final.weights.h5"))
