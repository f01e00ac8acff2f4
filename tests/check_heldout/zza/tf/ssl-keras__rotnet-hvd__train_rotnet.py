# RotNet (Gidaris et al. 2018) self-supervised pre-training + linear probe, CIFAR-10, Horovod.
#   horovodrun -np 4 python train_rotnet.py
import argparse

import tensorflow as tf
import keras
import horovod.tensorflow.keras as hvd

from rotnet import data
from rotnet.callbacks import distributed_callbacks
from rotnet.model import conv_trunk, with_head

parser = argparse.ArgumentParser()
parser.add_argument("--pretext-epochs", type=int, default=60)
parser.add_argument("--probe-epochs", type=int, default=30)
parser.add_argument("--batch", type=int, default=128, help="per-worker batch (pretext: rotated images)")
parser.add_argument("--lr", type=float, default=0.05)
parser.add_argument("--probe-lr", type=float, default=0.01)
parser.add_argument("--ckpt-dir", default="rotnet_ckpt")
args = parser.parse_args()

hvd.init()
gpus = tf.config.experimental.list_physical_devices("GPU")
for g in gpus:
    tf.config.experimental.set_memory_growth(g, True)
if gpus:
    tf.config.experimental.set_visible_devices(gpus[hvd.local_rank()], "GPU")

(x_train, y_train), (x_test, y_test) = keras.datasets.cifar10.load_data()
steps_per_epoch = 4 * len(x_train) // (args.batch * hvd.size())
verbose = 2 if hvd.rank() == 0 else 0

# ---- stage 1: rotation pretext task ---------------------------------------------------------
trunk = conv_trunk()
rot_model = with_head(trunk, 4, "rotnet")
pretext_lr = args.lr * hvd.size()
rot_model.compile(
    optimizer=hvd.DistributedOptimizer(keras.optimizers.SGD(pretext_lr, momentum=0.9, nesterov=True)),
    loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True),
    metrics=["accuracy"],
)
rot_model.fit(
    data.pretext_dataset(x_train, args.batch, hvd.rank(), hvd.size()),
    steps_per_epoch=steps_per_epoch,
    epochs=args.pretext_epochs,
    callbacks=distributed_callbacks(pretext_lr, 5, f"{args.ckpt_dir}/rotnet.weights.h5"),
    verbose=verbose,
)

# ---- stage 2: linear probe on the frozen trunk ---------------------------------------------
probe = with_head(trunk, 10, "probe", freeze_trunk=True)
probe_lr = args.probe_lr * hvd.size()
probe.compile(
    optimizer=hvd.DistributedOptimizer(keras.optimizers.Adam(probe_lr)),
    loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True),
    metrics=["accuracy"],
)
probe.fit(
    data.labelled_dataset(x_train, y_train, 256, hvd.rank(), hvd.size()),
    steps_per_epoch=len(x_train) // (256 * hvd.size()),
    epochs=args.probe_epochs,
    validation_data=data.labelled_dataset(x_test, y_test, 500, train=False),
    callbacks=distributed_callbacks(probe_lr, 2, f"{args.ckpt_dir}/probe.weights.h5"),
    verbose=verbose,
)
loss, acc = probe.evaluate(data.labelled_dataset(x_test, y_test, 500, train=False), verbose=0)
if hvd.rank() == 0:
    print(f"RotNet linear probe accuracy: {acc:.4f}")
