"""
Crystal-system classification from simulated powder XRD patterns (1D CNN, 7 classes).

Patterns were simulated from ICSD structures (2-theta 5-90 deg, 4251 points) and stored in
xrd_sim.h5: 'train/x' (N, 4251) float16, 'train/y' (N,) int8, same for 'test'.

    #SBATCH --nodes=1 --ntasks=4 --gres=gpu:4 --cpus-per-task=8
    export OMP_NUM_THREADS=8 TF_NUM_INTEROP_THREADS=2
    srun python train_xrd.py xrd_sim.h5
"""
import os
import sys

import h5py
import numpy as np
import tensorflow as tf
import keras
import horovod.keras as hvd

H5 = sys.argv[1] if len(sys.argv) > 1 else "xrd_sim.h5"
EPOCHS = int(os.environ.get("EPOCHS", 40))
BATCH = 128                 # per GPU
BASE_LR = 3e-4              # single-GPU value
WARMUP = 3

hvd.init()
gpus = tf.config.list_physical_devices("GPU")
if gpus:
    tf.config.experimental.set_memory_growth(gpus[hvd.local_rank()], True)
    tf.config.set_visible_devices(gpus[hvd.local_rank()], "GPU")
tf.config.threading.set_intra_op_parallelism_threads(int(os.environ.get("OMP_NUM_THREADS", 4)))


def read_block(h5, split, rank, size):
    """Contiguous block of rows for this rank, every block the same length (remainder dropped)."""
    n = h5[f"{split}/y"].shape[0]
    per = n // size
    lo, hi = rank * per, (rank + 1) * per
    x = h5[f"{split}/x"][lo:hi].astype("float32")
    y = h5[f"{split}/y"][lo:hi].astype("int64")
    x /= x.max(axis=1, keepdims=True) + 1e-8
    return x[..., None], y


with h5py.File(H5, "r") as f:
    # the file is written in random order by the simulation pipeline, so contiguous blocks are fine
    x_train, y_train = read_block(f, "train", hvd.rank(), hvd.size())
    x_test, y_test = read_block(f, "test", hvd.rank(), hvd.size())


def xrd_cnn(n_points, n_classes=7):
    inp = keras.Input((n_points, 1))
    h = inp
    for filters, k in ((32, 35), (64, 25), (64, 15), (128, 9)):
        h = keras.layers.Conv1D(filters, k, strides=1, padding="same", activation="relu")(h)
        h = keras.layers.MaxPooling1D(3)(h)
    h = keras.layers.GlobalAveragePooling1D()(h)
    h = keras.layers.Dense(256, activation="relu")(h)
    h = keras.layers.Dropout(0.3)(h)
    return keras.Model(inp, keras.layers.Dense(n_classes, activation="softmax")(h))


model = xrd_cnn(x_train.shape[1])
opt = hvd.DistributedOptimizer(keras.optimizers.Adam(learning_rate=BASE_LR * hvd.size()))
model.compile(optimizer=opt, loss="sparse_categorical_crossentropy", metrics=["accuracy"])

callbacks = [
    hvd.callbacks.BroadcastGlobalVariablesCallback(0),
    hvd.callbacks.MetricAverageCallback(),
    hvd.callbacks.LearningRateWarmupCallback(initial_lr=BASE_LR * hvd.size(), warmup_epochs=WARMUP,
                                             verbose=1 if hvd.rank() == 0 else 0),
    keras.callbacks.ReduceLROnPlateau(monitor="val_loss", factor=0.3, patience=4),
]
if hvd.rank() == 0:
    os.makedirs("checkpoints", exist_ok=True)
    callbacks.append(keras.callbacks.ModelCheckpoint("checkpoints/xrd-{epoch:02d}.keras"))

model.fit(x_train, y_train, batch_size=BATCH, epochs=EPOCHS, shuffle=True,
          validation_data=(x_test, y_test), callbacks=callbacks,
          verbose=2 if hvd.rank() == 0 else 0)

loss, acc = model.evaluate(x_test, y_test, batch_size=512, verbose=0)
loss, acc = hvd.allreduce(np.array([loss, acc]), name="test_metrics")
if hvd.rank() == 0:
    print(f"test loss {loss:.4f}  test accuracy {acc:.4f}")
