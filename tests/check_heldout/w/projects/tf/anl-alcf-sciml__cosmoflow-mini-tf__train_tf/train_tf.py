"""CosmoFlow-mini, TF2/Keras 3 + horovod.tensorflow.keras (Polaris: mpiexec -n 8 --ppn 4 python train_tf.py)"""
import argparse

import keras
import tensorflow as tf
import horovod.tensorflow.keras as hvd

from cosmoflow_tf.callbacks import build_callbacks
from cosmoflow_tf.config import TFConfig
from cosmoflow_tf.data import h5_dataset, n_samples, rank_indices
from cosmoflow_tf.model import build_model
from cosmoflow_tf.utils import dump_run_info, setup_logging

hvd.init()
gpus = tf.config.experimental.list_physical_devices("GPU")
for gpu in gpus:
    tf.config.experimental.set_memory_growth(gpu, True)
if gpus:
    tf.config.experimental.set_visible_devices(gpus[hvd.local_rank()], "GPU")

ap = argparse.ArgumentParser()
ap.add_argument("--data-file", default=TFConfig.data_file)
ap.add_argument("--epochs", type=int, default=TFConfig.epochs)
ap.add_argument("--batch-size", type=int, default=TFConfig.batch_size)
args = ap.parse_args()
cfg = TFConfig(data_file=args.data_file, epochs=args.epochs, batch_size=args.batch_size).finalize(hvd.size())

n = n_samples(cfg.data_file)
train_idx, val_idx = rank_indices(n, cfg.val_fraction, hvd.rank(), hvd.size(), cfg.seed)
train_ds = h5_dataset(cfg.data_file, train_idx, cfg.batch_size, shuffle=True, seed=cfg.seed + hvd.rank())
val_ds = h5_dataset(cfg.data_file, val_idx, cfg.batch_size, shuffle=False, seed=0)
log = setup_logging(hvd.rank())
if hvd.rank() == 0:
    info = dump_run_info(cfg, len(train_idx), len(val_idx), f"{cfg.out_dir}/run_info.json")
    log.info("config: %s", info)

model = build_model(n_out=cfg.n_targets)
opt = keras.optimizers.SGD(learning_rate=cfg.lr * hvd.size(), momentum=cfg.momentum)
opt = hvd.DistributedOptimizer(opt)
model.compile(optimizer=opt, loss="mse", metrics=["mae"])
if hvd.rank() == 0:
    model.summary(print_fn=log.info)

model.fit(train_ds,
          steps_per_epoch=len(train_idx) // cfg.batch_size,
          validation_data=val_ds,
          validation_steps=max(len(val_idx) // cfg.batch_size, 1),
          epochs=cfg.epochs,
          callbacks=build_callbacks(cfg),
          verbose=2 if hvd.rank() == 0 else 0)
log.info("done: %d epochs on %d ranks", cfg.epochs, hvd.size())
