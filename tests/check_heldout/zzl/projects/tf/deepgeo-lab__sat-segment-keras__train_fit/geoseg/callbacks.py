import os

import keras
import horovod.tensorflow.keras as hvdk


def build_callbacks(out_dir, is_chief):
    cbs = [
        hvdk.callbacks.MetricAverageCallback(),
        # resumes an interrupted job, like under MultiWorkerMirroredStrategy
        keras.callbacks.BackupAndRestore(backup_dir=os.path.join(out_dir, "backup")),
        keras.callbacks.ReduceLROnPlateau(monitor="val_loss", factor=0.5, patience=3),
    ]
    if is_chief:
        cbs.append(keras.callbacks.ModelCheckpoint(
            os.path.join(out_dir, "best.weights.h5"), monitor="val_pix_acc",
            mode="max", save_best_only=True, save_weights_only=True))
        cbs.append(keras.callbacks.TensorBoard(os.path.join(out_dir, "tb")))
        cbs.append(keras.callbacks.CSVLogger(os.path.join(out_dir, "history.csv")))
    return cbs
