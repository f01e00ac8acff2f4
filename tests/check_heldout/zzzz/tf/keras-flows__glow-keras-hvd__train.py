import os
import tensorflow as tf
import keras
import horovod.tensorflow.keras as hvd

from kglow.config import parse_args
from kglow.data import train_dataset, val_dataset, first_batch
from kglow.model import Glow, bpd_loss
from kglow.callbacks import SampleGrid, make_checkpoint

args = parse_args()

hvd.init()
gpus = tf.config.list_physical_devices("GPU")
for g in gpus:
    tf.config.experimental.set_memory_growth(g, True)
if gpus:
    tf.config.set_visible_devices(gpus[hvd.local_rank()], "GPU")

train_ds, n_train = train_dataset(args.data, args.batch_size, args.n_bits, hvd.rank(), hvd.size())
val_ds = val_dataset(args.val_data, args.batch_size, args.n_bits, hvd.rank(), hvd.size())
steps_per_epoch = n_train // (args.batch_size * hvd.size())

model = Glow(args.levels, args.depth, args.width, args.n_bits)
x0 = first_batch(args.data, args.batch_size, args.n_bits)
model.data_dependent_init(x0)  # actnorm init; weights are synced by the broadcast callback below

opt = keras.optimizers.Adam(learning_rate=args.lr * hvd.size())
opt = hvd.DistributedOptimizer(opt)
model.compile(optimizer=opt, loss=bpd_loss)

callbacks = [
    hvd.callbacks.BroadcastGlobalVariablesCallback(0),
    hvd.callbacks.MetricAverageCallback(),
    hvd.callbacks.LearningRateWarmupCallback(initial_lr=args.lr * hvd.size(), warmup_epochs=args.warmup_epochs,
                                             steps_per_epoch=steps_per_epoch, verbose=1),
]
if hvd.rank() == 0:
    os.makedirs(args.logdir, exist_ok=True)
    callbacks += [make_checkpoint(args.logdir), SampleGrid(x0, os.path.join(args.logdir, "samples"), args.samples_every),
                  keras.callbacks.CSVLogger(os.path.join(args.logdir, "log.csv"))]

model.fit(train_ds, steps_per_epoch=steps_per_epoch, epochs=args.epochs, validation_data=val_ds,
          callbacks=callbacks, verbose=2 if hvd.rank() == 0 else 0)
