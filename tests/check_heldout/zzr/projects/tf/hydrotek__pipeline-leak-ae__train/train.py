import json
import os
import sys

import numpy as np
import tensorflow as tf
import keras
import horovod.tensorflow.keras as hvd

from leakdet import settings
from leakdet.evaluate import scores, threshold_from_train, window_mse
from leakdet.hvd_callbacks import horovod_callbacks
from leakdet.nets import conv_autoencoder
from leakdet.pipeline import n_windows, sensor_files, worker_dataset

hvd.init()

gpus = tf.config.experimental.list_physical_devices('GPU')
for gpu in gpus:
    tf.config.experimental.set_memory_growth(gpu, True)
if gpus:
    tf.config.experimental.set_visible_devices(gpus[hvd.local_rank()], 'GPU')

keras.utils.set_random_seed(settings.SEED + hvd.rank())
run_name = sys.argv[1] if len(sys.argv) > 1 else "baseline"
run_dir = os.path.join(settings.RUN_DIR, run_name)
os.makedirs(run_dir, exist_ok=True)

global_batch = settings.BATCH_PER_WORKER * hvd.size()
steps_per_epoch = n_windows(sensor_files("train")) // global_batch
val_steps = max(1, n_windows(sensor_files("val")) // global_batch)

model = conv_autoencoder()
lr = settings.BASE_LR * hvd.size()
model.compile(optimizer=hvd.DistributedOptimizer(keras.optimizers.Adam(lr)), loss="mse")

callbacks = horovod_callbacks(lr)
callbacks.append(keras.callbacks.ModelCheckpoint(os.path.join(run_dir, "leak_ae.keras"),
                                                 monitor="val_loss", save_best_only=True))
if hvd.rank() == 0:
    callbacks.append(keras.callbacks.TensorBoard(log_dir=os.path.join(run_dir, "tb")))

history = model.fit(worker_dataset("train", hvd.rank(), hvd.size()),
                    steps_per_epoch=steps_per_epoch,
                    validation_data=worker_dataset("val", hvd.rank(), hvd.size(), training=False),
                    validation_steps=val_steps,
                    epochs=settings.EPOCHS,
                    callbacks=callbacks,
                    verbose=1 if hvd.rank() == 0 else 0)

if hvd.rank() == 0:
    train_x = np.concatenate([np.load(f) for f in sensor_files("train")]).astype("float32")[..., None]
    thr = threshold_from_train(window_mse(model, train_x))
    test = np.load(os.path.join(settings.DATA_ROOT, "test_labelled.npz"))
    result = scores(window_mse(model, test["x"].astype("float32")[..., None]), test["y"], thr)
    result["threshold"] = thr
    with open(os.path.join(run_dir, "metrics.json"), "w") as fh:
        json.dump(result, fh, indent=2)
    print(json.dumps(result, indent=2))
