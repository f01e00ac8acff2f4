"""Elastic ClimateNet segmentation training on Perlmutter (Horovod elastic + Keras fit).

    horovodrun -np 16 --min-np 8 --host-discovery-script ./hosts.sh python train_elastic.py
"""
import argparse
import os

import tensorflow as tf
from tensorflow import keras
import horovod.tensorflow.keras as hvd

from climseg.data import make_dataset
from climseg.losses import WeightedJaccardCE
from climseg.model import build_segmenter

ap = argparse.ArgumentParser()
ap.add_argument("--data", default="/pscratch/climatenet")
ap.add_argument("--epochs", type=int, default=60)
ap.add_argument("--batch-size", type=int, default=2)
ap.add_argument("--lr", type=float, default=0.01)
ap.add_argument("--out", default="runs/climseg")
args = ap.parse_args()

hvd.init()
for gpu in tf.config.list_physical_devices("GPU"):
    tf.config.experimental.set_memory_growth(gpu, True)
gpus = tf.config.list_physical_devices("GPU")
if gpus:
    tf.config.set_visible_devices(gpus[hvd.local_rank()], "GPU")
keras.mixed_precision.set_global_policy("mixed_float16")

model = build_segmenter()
opt = keras.optimizers.SGD(learning_rate=args.lr * hvd.size(), momentum=0.9, nesterov=True)
opt = hvd.DistributedOptimizer(opt)
model.compile(optimizer=opt, loss=WeightedJaccardCE(),
              metrics=[keras.metrics.MeanIoU(num_classes=3, sparse_y_pred=False, name="miou")])

state = hvd.elastic.KerasState(model, batch=0, epoch=0)


def on_state_reset():
    # the number of workers changed: rescale the learning rate to the new size
    lr = state.model.optimizer.learning_rate
    lr.assign(lr * hvd.size())


state.register_reset_callbacks([on_state_reset])

callbacks = [
    hvd.callbacks.MetricAverageCallback(),
    hvd.elastic.UpdateEpochStateCallback(state),
    hvd.elastic.UpdateBatchStateCallback(state),
    hvd.elastic.CommitStateCallback(state, batches_per_commit=50),
]
if hvd.rank() == 0:
    os.makedirs(args.out, exist_ok=True)
    callbacks.append(keras.callbacks.ModelCheckpoint(os.path.join(args.out, "climseg-{epoch:03d}.keras")))
    callbacks.append(keras.callbacks.TensorBoard(os.path.join(args.out, "tb")))


@hvd.elastic.run
def train(state):
    train_ds, n_train = make_dataset(args.data, "train", args.batch_size, training=True)
    val_ds, _ = make_dataset(args.data, "val", args.batch_size, training=False)
    steps = n_train // (args.batch_size * hvd.size())
    state.model.fit(train_ds, steps_per_epoch=steps, epochs=args.epochs - state.epoch,
                    validation_data=val_ds, callbacks=callbacks,
                    verbose=1 if hvd.rank() == 0 else 0)


train(state)
