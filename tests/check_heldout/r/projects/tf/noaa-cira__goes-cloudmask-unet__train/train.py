"""Binary cloud mask from GOES-16 ABI channels (U-Net, Keras), trained on CLAVR-x labels.

    #PBS -l select=2:ncpus=32:ngpus=4 -l walltime=06:00:00
    mpiexec -n 8 --ppn 4 python train.py --tiles /glade/campaign/cira/goes_tiles --epochs 50
"""
import argparse
import os

import horovod.tensorflow.keras as hvd
from tensorflow import keras

from cloudmask import hpc, tiles, unet

parser = argparse.ArgumentParser()
parser.add_argument("--tiles", required=True)
parser.add_argument("--epochs", type=int, default=50)
parser.add_argument("--batch-size", type=int, default=16, help="tiles per GPU")
parser.add_argument("--lr", type=float, default=2e-4)
parser.add_argument("--out", default="runs/cloudmask")
args = parser.parse_args()

hvd.init()
hpc.configure(hvd.local_rank(), threads=8)

train_ds, n_train = tiles.dataset(args.tiles, "train", args.batch_size, hvd.rank(), hvd.size())
val_ds, n_val = tiles.dataset(args.tiles, "val", args.batch_size, hvd.rank(), hvd.size())
steps = n_train // (args.batch_size * hvd.size())
val_steps = n_val // (args.batch_size * hvd.size())

model = unet.build_unet(n_channels=len(tiles.CHANNELS), base=32)
unet.compile_model(model, args.lr * hvd.size())

callbacks = [
    hvd.callbacks.BroadcastGlobalVariablesCallback(0),
    hvd.callbacks.MetricAverageCallback(),
    hvd.callbacks.LearningRateWarmupCallback(initial_lr=args.lr * hvd.size(), warmup_epochs=2, steps_per_epoch=steps),
]
if hvd.rank() == 0:
    os.makedirs(args.out, exist_ok=True)
    callbacks.append(keras.callbacks.ModelCheckpoint(os.path.join(args.out, "unet-{epoch:03d}.h5"),
                                                     save_weights_only=True))
    callbacks.append(keras.callbacks.CSVLogger(os.path.join(args.out, "history.csv")))

model.fit(train_ds, steps_per_epoch=steps, epochs=args.epochs,
          validation_data=val_ds, validation_steps=val_steps,
          callbacks=callbacks, verbose=1 if hvd.rank() == 0 else 0)
