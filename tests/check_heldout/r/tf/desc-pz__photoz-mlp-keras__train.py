"""Photometric redshift estimation (ugrizy magnitudes + colours -> z) for the cosmoDC2 test catalogue.

    module load tensorflow/2.15 horovod
    srun -n 8 python train.py
"""
import argparse

import horovod.tensorflow.keras as hvd
from tensorflow import keras

from photoz import callbacks, catalog, config, diagnostics, net

ap = argparse.ArgumentParser()
ap.add_argument("--catalog", default=config.CATALOG)
ap.add_argument("--epochs", type=int, default=config.EPOCHS)
ap.add_argument("--out-dir", default=config.OUT_DIR)
args = ap.parse_args()
config.CATALOG, config.EPOCHS, config.OUT_DIR = args.catalog, args.epochs, args.out_dir

hvd.init()
callbacks.setup_gpus(hvd.local_rank())

(x_tr, z_tr), (x_va, z_va) = catalog.load(config.CATALOG, hvd.rank(), hvd.size())
if hvd.rank() == 0:
    print(f"{hvd.size()} ranks; {len(x_tr)} training galaxies per rank")

model = net.build(x_tr.shape[1], config.HIDDEN, config.DROPOUT)
opt = keras.optimizers.Adam(learning_rate=config.LR)
opt = hvd.DistributedOptimizer(opt)
model.compile(optimizer=opt, loss=net.outlier_robust_loss, metrics=["mae"])

cbs = callbacks.make_callbacks(hvd.rank(), config.OUT_DIR)
model.fit(x_tr, z_tr,
          batch_size=config.BATCH_SIZE,
          epochs=config.EPOCHS,
          validation_data=(x_va, z_va),
          callbacks=cbs,
          verbose=2 if hvd.rank() == 0 else 0)

if hvd.rank() == 0:
    model.save(f"{config.OUT_DIR}/photoz_final.keras")
    print("wrote", diagnostics.plot_history(config.OUT_DIR))
