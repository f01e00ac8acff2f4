import os

import keras
import horovod.tensorflow.keras as hvd


def is_writer():
    # one writer per node, the others only train
    return hvd.local_rank() == 0


def make_callbacks(run_dir, base_lr, warmup_epochs=2):
    cbs = [hvd.callbacks.BroadcastGlobalVariablesCallback(0),
           hvd.callbacks.MetricAverageCallback(),
           hvd.callbacks.LearningRateWarmupCallback(initial_lr=base_lr * hvd.size(),
                                                    warmup_epochs=warmup_epochs)]
    if is_writer():
        os.makedirs(run_dir, exist_ok=True)
        cbs.append(keras.callbacks.ModelCheckpoint(os.path.join(run_dir, "psr_{epoch:03d}.keras")))
        cbs.append(keras.callbacks.CSVLogger(os.path.join(run_dir, "log.csv"), append=True))
    return cbs
