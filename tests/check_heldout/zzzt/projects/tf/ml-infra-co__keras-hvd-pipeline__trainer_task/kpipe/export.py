import os

import keras


def checkpoint_callbacks(job_dir, rank):
    if rank != 0:
        return []
    os.makedirs(job_dir, exist_ok=True)
    return [keras.callbacks.ModelCheckpoint(os.path.join(job_dir, "best.keras"),
                                            monitor="val_auc", mode="max", save_best_only=True)]


def export_model(model, job_dir, rank):
    if rank == 0:
        model.save(os.path.join(job_dir, "final.keras"))
