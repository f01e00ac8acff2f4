"""Task-incremental learning with one Keras head per task, trained with horovod.

    horovodrun -np 4 python train.py --data data/split_cifar10.npz --epochs 10
"""
import argparse

import numpy as np
import keras
import tensorflow as tf
import horovod.tensorflow.keras as hvd

from clheads.data import load, task_arrays, train_dataset, eval_dataset
from clheads.model import backbone, with_head
from clheads.callbacks import make_callbacks

TASKS = [[0, 1], [2, 3], [4, 5], [6, 7], [8, 9]]

ap = argparse.ArgumentParser()
ap.add_argument("--data", default="data/split_cifar10.npz")
ap.add_argument("--epochs", type=int, default=10)
ap.add_argument("--batch", type=int, default=64)
ap.add_argument("--lr", type=float, default=0.01)
ap.add_argument("--warmup", type=int, default=2)
ap.add_argument("--ckpt-dir", default="checkpoints")
args = ap.parse_args()

hvd.init()
gpus = tf.config.list_physical_devices("GPU")
for g in gpus:
    tf.config.experimental.set_memory_growth(g, True)
if gpus:
    tf.config.set_visible_devices(gpus[hvd.local_rank()], "GPU")

train, test = load(args.data)
trunk = backbone(train[0].shape[1:])
results = np.zeros((len(TASKS), len(TASKS)))
models = []

for t, classes in enumerate(TASKS):
    x, y = task_arrays(train, classes)
    steps = len(x) // (args.batch * hvd.size())
    ds = train_dataset(x, y, args.batch, hvd.rank(), hvd.size(), seed=t)

    model = with_head(trunk, len(classes), t)
    opt = keras.optimizers.SGD(learning_rate=args.lr * hvd.size(), momentum=0.9)
    model.compile(optimizer=hvd.DistributedOptimizer(opt),
                  loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True),
                  metrics=["accuracy"])
    model.fit(ds, steps_per_epoch=steps, epochs=args.epochs,
              callbacks=make_callbacks(t, args.ckpt_dir, args.lr * hvd.size(), args.warmup, steps),
              verbose=2 if hvd.rank() == 0 else 0)
    models.append(model)

    # every worker scores the full test split of each task seen so far
    for k in range(t + 1):
        xt, yt = task_arrays(test, TASKS[k])
        _, results[t, k] = models[k].evaluate(eval_dataset(xt, yt), verbose=0)
    if hvd.rank() == 0:
        print(f"after task {t}: " + " ".join(f"{a:.3f}" for a in results[t, : t + 1])
              + f"  avg={results[t, : t + 1].mean():.3f}")

if hvd.rank() == 0:
    np.savetxt(f"{args.ckpt_dir}/acc_matrix.txt", results, fmt="%.4f")
