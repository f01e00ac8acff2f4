"""CIFAR-10 ResNet-20 with Keras and Horovod (course exercise 3, solution)."""
import argparse

import horovod.tensorflow.keras as hvd
import keras

from data import load_cifar
from models import resnet_cifar
from utils.callbacks import checkpoint_callbacks
from utils.gpu import configure_gpu
from utils.timing import EpochTimer

parser = argparse.ArgumentParser()
parser.add_argument("--data", default="/scratch/course/cifar10.npz")
parser.add_argument("--depth", type=int, default=20)
parser.add_argument("--epochs", type=int, default=60)
parser.add_argument("--batch-size", type=int, default=128)
parser.add_argument("--lr", type=float, default=0.01)
parser.add_argument("--out", default="results/resnet20")
args = parser.parse_args()

# Horovod: initialize
hvd.init()

train_ds, test_ds = load_cifar(args.data, args.batch_size, hvd.size(), hvd.rank())
model = resnet_cifar(args.depth)
if hvd.rank() == 0:
    model.summary()

# Horovod: one GPU per process
configure_gpu(hvd.local_rank())

# Horovod: scale learning rate by the number of workers and wrap the optimizer
opt = keras.optimizers.SGD(learning_rate=args.lr * hvd.size(), momentum=0.9)
opt = hvd.DistributedOptimizer(opt)
model.compile(optimizer=opt, loss="sparse_categorical_crossentropy", metrics=["accuracy"])

callbacks = [
    hvd.callbacks.BroadcastGlobalVariablesCallback(0),
    hvd.callbacks.MetricAverageCallback(),
    hvd.callbacks.LearningRateWarmupCallback(warmup_epochs=5, verbose=1),
    keras.callbacks.LearningRateScheduler(
        lambda epoch, lr: lr * 0.1 if epoch in (30, 45) else lr),
]
callbacks += checkpoint_callbacks(args.out)
callbacks.append(EpochTimer(50000, enabled=hvd.rank() == 0))

model.fit(train_ds, epochs=args.epochs, validation_data=test_ds, callbacks=callbacks,
          verbose=2 if hvd.rank() == 0 else 0)
