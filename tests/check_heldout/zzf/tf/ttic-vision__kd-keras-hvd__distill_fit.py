"""Response-based KD with keras.Model.fit + Horovod (Keras 3, TF backend).

horovodrun -np 4 python distill_fit.py --teacher models/resnet56_cifar10.keras
"""
import argparse

import tensorflow as tf
import keras
import horovod.tensorflow.keras as hvd

from kdk import Distiller
from kdk.callbacks import chief_callbacks, horovod_callbacks
from kdk.data import cifar10
from kdk.models import load_teacher, student_cnn

ap = argparse.ArgumentParser()
ap.add_argument("--teacher", default="models/resnet56_cifar10.keras")
ap.add_argument("--epochs", type=int, default=40)
ap.add_argument("--batch", type=int, default=128)
ap.add_argument("--lr", type=float, default=1e-3)
ap.add_argument("--warmup", type=int, default=3)
ap.add_argument("--temperature", type=float, default=3.0)
ap.add_argument("--alpha", type=float, default=0.1)
ap.add_argument("--out", default="runs/distill_fit")
opts = ap.parse_args()

hvd.init()
for gpu in tf.config.list_physical_devices("GPU"):
    tf.config.experimental.set_memory_growth(gpu, True)
gpus = tf.config.list_physical_devices("GPU")
if gpus:
    tf.config.set_visible_devices(gpus[hvd.local_rank()], "GPU")

train_ds, test_ds, steps = cifar10(opts.batch)
distiller = Distiller(student_cnn(), load_teacher(opts.teacher), opts.temperature, opts.alpha)
distiller(tf.zeros((1, 32, 32, 3)))  # build, so that ModelCheckpoint can save weights

scaled_lr = opts.lr * hvd.size()
optimizer = hvd.DistributedOptimizer(keras.optimizers.Adam(learning_rate=scaled_lr))
distiller.compile(optimizer=optimizer)

history = distiller.fit(
    train_ds,
    epochs=opts.epochs,
    steps_per_epoch=steps,
    validation_data=test_ds,
    callbacks=horovod_callbacks(scaled_lr, opts.warmup, steps) + chief_callbacks(opts.out),
    verbose=2 if hvd.rank() == 0 else 0,
)
if hvd.rank() == 0:
    distiller.student.save(f"{opts.out}/student_final.keras")
    print("best val acc:", max(history.history["val_acc"]))
