import keras
import horovod.tensorflow.keras as hvd


def make_callbacks(ckpt_path, patience):
    cbs = [hvd.callbacks.BroadcastGlobalVariablesCallback(root_rank=0),
           hvd.callbacks.MetricAverageCallback(),
           keras.callbacks.EarlyStopping(monitor="val_auc", mode="max", patience=patience)]
    if hvd.rank() == 0:
        cbs.append(keras.callbacks.ModelCheckpoint(ckpt_path, monitor="val_auc", mode="max",
                                                   save_best_only=True))
        cbs.append(keras.callbacks.CSVLogger(ckpt_path.replace(".keras", ".csv")))
    return cbs
