import os
import sys

import keras
import horovod.tensorflow.keras as hvd

from c3dkeras import config as C
from c3dkeras.data import hmdb_split
from c3dkeras.hvd_utils import init_horovod, distributed_callbacks
from c3dkeras.model import c3d_small


def run(epochs=C.EPOCHS):
    rank, world = init_horovod()
    train_ds, n_train = hmdb_split(True, rank, world)
    val_ds, _ = hmdb_split(False, rank, world)

    callbacks, lr = distributed_callbacks(C.BASE_LR, C.WARMUP_EPOCHS, C.LR_DROP_EPOCHS, C.CKPT_DIR)
    model = c3d_small()
    model.compile(optimizer=hvd.DistributedOptimizer(keras.optimizers.Adam(lr)),
                  loss="sparse_categorical_crossentropy", metrics=["accuracy"])
    if rank == 0:
        model.summary()

    hist = model.fit(train_ds, steps_per_epoch=C.TRAIN_VIDEOS // (C.BATCH_PER_GPU * world),
                     validation_data=val_ds, epochs=epochs, callbacks=callbacks,
                     verbose=1 if rank == 0 else 0)

    os.makedirs(C.EXPORT_DIR, exist_ok=True)
    model.save(os.path.join(C.EXPORT_DIR, "c3d_hmdb51_final.keras"))
    if rank == 0:
        print("final val acc: %.4f" % hist.history["val_accuracy"][-1])
    return hist


if __name__ == "__main__":
    run(int(sys.argv[1]) if len(sys.argv) > 1 else C.EPOCHS)
