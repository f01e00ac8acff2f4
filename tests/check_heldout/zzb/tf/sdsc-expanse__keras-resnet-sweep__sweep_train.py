#!/usr/bin/env python
# Batch-size sweep for ResNet-20 / CIFAR-10 on Expanse GPU nodes.
# The rank-count part of the sweep is done by submit_sweep.sh (1, 2, 4, 8 GPUs);
# inside one job this script trains one fresh model per batch size in --batches.
#
#   srun --mpi=pmi2 -n 4 python sweep_train.py --batches 64,128,256 --epochs 15
import argparse
import csv
import os
import time

import numpy as np
import tensorflow as tf
import horovod.tensorflow.keras as hvd

p = argparse.ArgumentParser()
p.add_argument("--batches", default="64,128,256", help="per-GPU batch sizes to sweep")
p.add_argument("--epochs", type=int, default=15)
p.add_argument("--base-lr", type=float, default=0.05, help="lr for one GPU at batch 128")
p.add_argument("--warmup", type=int, default=3)
p.add_argument("--synthetic", action="store_true")
p.add_argument("--outdir", default="sweep_out")
p.add_argument("--threads", type=int, default=int(os.environ.get("SLURM_CPUS_PER_TASK", 10)))
args = p.parse_args()

hvd.init()
tf.config.threading.set_intra_op_parallelism_threads(args.threads)
tf.config.threading.set_inter_op_parallelism_threads(2)
for gpu in tf.config.list_physical_devices("GPU"):
    tf.config.experimental.set_memory_growth(gpu, True)
gpus = tf.config.list_physical_devices("GPU")
if gpus:
    tf.config.set_visible_devices(gpus[hvd.local_rank()], "GPU")

VERBOSE = 1 if hvd.rank() == 0 else 0
RUN_DIR = os.path.join(args.outdir, f"np{hvd.size()}")
os.makedirs(os.path.join(RUN_DIR, f"rank{hvd.rank()}"), exist_ok=True)

if args.synthetic:
    rs = np.random.RandomState(0)
    x_train = rs.rand(10000, 32, 32, 3).astype("float32")
    y_train = rs.randint(0, 10, size=(10000, 1))
    x_test = rs.rand(2000, 32, 32, 3).astype("float32")
    y_test = rs.randint(0, 10, size=(2000, 1))
else:
    (x_train, y_train), (x_test, y_test) = tf.keras.datasets.cifar10.load_data()
    x_train, x_test = x_train.astype("float32") / 255.0, x_test.astype("float32") / 255.0

# identical permutation on all ranks, cut into hvd.size() equal pieces
n_use = len(x_train) // hvd.size() * hvd.size()
order = np.random.RandomState(1234).permutation(len(x_train))[:n_use]
mine = np.split(order, hvd.size())[hvd.rank()]
x_local, y_local = x_train[mine], y_train[mine]


def resnet20(num_classes=10):
    def unit(x, f, stride):
        y = tf.keras.layers.Conv2D(f, 3, stride, padding="same", use_bias=False)(x)
        y = tf.keras.layers.BatchNormalization()(y)
        y = tf.keras.layers.ReLU()(y)
        y = tf.keras.layers.Conv2D(f, 3, padding="same", use_bias=False)(y)
        y = tf.keras.layers.BatchNormalization()(y)
        if stride != 1 or x.shape[-1] != f:
            x = tf.keras.layers.Conv2D(f, 1, stride, use_bias=False)(x)
        return tf.keras.layers.ReLU()(tf.keras.layers.Add()([x, y]))

    inp = tf.keras.Input((32, 32, 3))
    x = tf.keras.layers.ReLU()(tf.keras.layers.BatchNormalization()(
        tf.keras.layers.Conv2D(16, 3, padding="same", use_bias=False)(inp)))
    for f, s in ((16, 1), (32, 2), (64, 2)):
        for i in range(3):
            x = unit(x, f, s if i == 0 else 1)
    x = tf.keras.layers.GlobalAveragePooling2D()(x)
    return tf.keras.Model(inp, tf.keras.layers.Dense(num_classes, activation="softmax")(x))


results = []
for batch in [int(b) for b in args.batches.split(",")]:
    tf.keras.backend.clear_session()
    # linear rule in the *global* batch: one GPU at 128 -> base_lr
    lr = args.base_lr * batch * hvd.size() / 128.0
    model = resnet20()
    opt = hvd.DistributedOptimizer(tf.keras.optimizers.SGD(learning_rate=lr, momentum=0.9))
    model.compile(optimizer=opt, loss="sparse_categorical_crossentropy", metrics=["accuracy"])

    # fresh Horovod callbacks for every model: the broadcast callback only fires once per instance
    callbacks = [
        hvd.callbacks.BroadcastGlobalVariablesCallback(0),
        hvd.callbacks.MetricAverageCallback(),
        hvd.callbacks.LearningRateWarmupCallback(initial_lr=lr, warmup_epochs=args.warmup, verbose=VERBOSE),
        tf.keras.callbacks.CSVLogger(os.path.join(RUN_DIR, f"rank{hvd.rank()}", f"bs{batch}.csv")),
    ]
    if hvd.rank() == 0:
        callbacks.append(tf.keras.callbacks.ModelCheckpoint(
            os.path.join(RUN_DIR, f"resnet20_bs{batch}.weights.h5"), save_weights_only=True))

    t0 = time.time()
    hist = model.fit(x_local, y_local, batch_size=batch, epochs=args.epochs, shuffle=True,
                     validation_data=(x_test, y_test), callbacks=callbacks, verbose=VERBOSE)
    wall = time.time() - t0
    results.append((hvd.size(), batch, batch * hvd.size(), lr, wall,
                    hist.history["val_accuracy"][-1]))

if hvd.rank() == 0:
    with open(os.path.join(args.outdir, "sweep_summary.csv"), "a", newline="") as fh:
        w = csv.writer(fh)
        for row in results:
            w.writerow(row)
            print("ranks=%d bs=%d global=%d lr=%.4f wall=%.1fs val_acc=%.4f" % row)
