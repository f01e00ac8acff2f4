import os

import keras
import horovod.tensorflow.keras as hvd


def build_callbacks(stage, output_dir, first_epoch):
    cbs = [
        hvd.callbacks.BroadcastGlobalVariablesCallback(0),
        hvd.callbacks.MetricAverageCallback(),
        # step decay inside the stage: lr * 0.1 from `decay_at` on
        hvd.callbacks.LearningRateScheduleCallback(start_epoch=first_epoch + stage["decay_at"],
                                                   multiplier=0.1),
    ]
    if hvd.rank() == 0:
        os.makedirs(output_dir, exist_ok=True)
        cbs.append(keras.callbacks.ModelCheckpoint(
            os.path.join(output_dir, f"{stage['name']}" + "_{epoch:03d}.weights.h5"),
            save_weights_only=True))
        cbs.append(keras.callbacks.CSVLogger(os.path.join(output_dir, "history.csv"), append=True))
    return cbs
