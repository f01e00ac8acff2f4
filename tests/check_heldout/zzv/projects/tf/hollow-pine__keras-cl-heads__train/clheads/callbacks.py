import os
import keras
import horovod.tensorflow.keras as hvd


def make_callbacks(task_id, ckpt_dir, initial_lr, warmup_epochs, steps_per_epoch):
    cbs = [
        # a new head appears with every task: broadcast again for every fit
        hvd.callbacks.BroadcastGlobalVariablesCallback(0),
        hvd.callbacks.MetricAverageCallback(),
        hvd.callbacks.LearningRateWarmupCallback(initial_lr=initial_lr, warmup_epochs=warmup_epochs,
                                                 steps_per_epoch=steps_per_epoch, verbose=0),
    ]
    if hvd.rank() == 0:
        os.makedirs(ckpt_dir, exist_ok=True)
        cbs.append(keras.callbacks.ModelCheckpoint(
            os.path.join(ckpt_dir, f"task{task_id}.weights.h5"), save_weights_only=True))
        cbs.append(keras.callbacks.CSVLogger(os.path.join(ckpt_dir, f"task{task_id}.csv")))
    return cbs
