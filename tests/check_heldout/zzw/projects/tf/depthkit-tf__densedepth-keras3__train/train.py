"""DenseDepth-style monocular depth on NYU-Depth v2 (Keras 3 + Horovod).

horovodrun -np 4 python train.py --data data/nyu_npz --bs 8 --epochs 20
"""
import argparse
import os

import tensorflow as tf
import keras
import horovod.tensorflow.keras as hvd

from densedepth import abs_rel, build_densedepth, depth_loss, rmse
from densedepth.data import nyu_dataset
from densedepth.hvd_callbacks import training_callbacks

parser = argparse.ArgumentParser(description="High Quality Monocular Depth Estimation via Transfer Learning")
parser.add_argument("--data", default="data/nyu_npz")
parser.add_argument("--lr", type=float, default=1e-4, help="single-worker learning rate")
parser.add_argument("--bs", type=int, default=4, help="batch size per worker")
parser.add_argument("--epochs", type=int, default=20)
parser.add_argument("--warmup", type=int, default=2)
parser.add_argument("--name", default="densedepth_nyu")
args = parser.parse_args()

hvd.init()
for gpu in tf.config.list_physical_devices("GPU"):
    tf.config.experimental.set_memory_growth(gpu, True)
gpus = tf.config.list_physical_devices("GPU")
if gpus:
    tf.config.set_visible_devices(gpus[hvd.local_rank()], "GPU")

train_ds, train_steps = nyu_dataset(args.data, "train", args.bs, hvd.rank(), hvd.size())
val_ds, val_steps = nyu_dataset(args.data, "test", args.bs, hvd.rank(), hvd.size())

model = build_densedepth()
scaled_lr = args.lr * hvd.size()
opt = keras.optimizers.Adam(learning_rate=scaled_lr, amsgrad=True)
opt = hvd.DistributedOptimizer(opt)
model.compile(optimizer=opt, loss=depth_loss, metrics=[abs_rel, rmse])
if hvd.rank() == 0:
    model.summary()

run_dir = os.path.join("runs", args.name)
callbacks = training_callbacks(scaled_lr, args.warmup, os.path.join(run_dir, "ckpt"), run_dir)
model.fit(train_ds, steps_per_epoch=train_steps, epochs=args.epochs, validation_data=val_ds,
          validation_steps=val_steps, callbacks=callbacks, verbose=2 if hvd.rank() == 0 else 0)
