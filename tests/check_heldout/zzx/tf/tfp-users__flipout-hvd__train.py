"""Bayesian MLP (mean-field VI) on MNIST with horovod.tensorflow.keras.

The KL term of every variational layer is divided by the size of the *full* training
set, so the objective is the per-example negative ELBO regardless of the worker count.
"""
import argparse
import json
import os

import numpy as np
import tensorflow as tf
import keras
import horovod.tensorflow.keras as hvd

from bnn.callbacks import make_callbacks
from bnn.calibration import expected_calibration_error, mc_predict, nll_and_brier
from bnn.data import load_mnist_flat, rank_slice
from bnn.layers import build_bnn

parser = argparse.ArgumentParser()
parser.add_argument("--epochs", type=int, default=40)
parser.add_argument("--batch-size", type=int, default=128)
parser.add_argument("--lr", type=float, default=1e-3)
parser.add_argument("--warmup-epochs", type=int, default=3)
parser.add_argument("--mc-samples", type=int, default=20)
parser.add_argument("--workdir", default="work/bnn_mnist")
args = parser.parse_args()

hvd.init()
for gpu in tf.config.list_physical_devices("GPU"):
    tf.config.experimental.set_memory_growth(gpu, True)
gpus = tf.config.list_physical_devices("GPU")
if gpus:
    tf.config.set_visible_devices(gpus[hvd.local_rank()], "GPU")

(x_train, y_train), (x_test, y_test) = load_mnist_flat()
n_train = len(x_train)
x_tr, y_tr = rank_slice(x_train, y_train, hvd.rank(), hvd.size())
x_va, y_va = rank_slice(x_test, y_test, hvd.rank(), hvd.size(), seed=1)

model = build_bnn(x_train.shape[1], 10, num_examples=n_train)
scaled_lr = args.lr * hvd.size()
opt = hvd.DistributedOptimizer(keras.optimizers.Adam(learning_rate=scaled_lr))
model.compile(optimizer=opt,
              loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True),
              metrics=["accuracy"])

os.makedirs(args.workdir, exist_ok=True)
callbacks = make_callbacks(scaled_lr, args.warmup_epochs,
                           os.path.join(args.workdir, "ckpt"), args.workdir)
model.fit(x_tr, y_tr, batch_size=args.batch_size, epochs=args.epochs,
          validation_data=(x_va, y_va), callbacks=callbacks,
          verbose=2 if hvd.rank() == 0 else 0)

if hvd.rank() == 0:
    probs = mc_predict(model, x_test, samples=args.mc_samples)
    nll, brier = nll_and_brier(probs, y_test)
    report = {"acc": float((probs.argmax(-1) == y_test).mean()), "nll": nll, "brier": brier,
              "ece": expected_calibration_error(probs, y_test)}
    print(json.dumps(report, indent=2))
    with open(os.path.join(args.workdir, "calibration.json"), "w") as f:
        json.dump(report, f)
