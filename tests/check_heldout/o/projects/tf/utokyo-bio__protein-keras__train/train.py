# Protein family classification (Pfam seed subset) with a dilated 1D ResNet, Keras + Horovod.
#   mpirun -np 8 python train.py --train data/pfam_train.csv --heldout data/pfam_dev.csv
import argparse

import numpy as np
import tensorflow as tf
import keras
import horovod.tensorflow.keras as hvd

from protcls import encode_fasta_table
from protcls.model import dilated_resnet1d
from protcls.callbacks import ShardedTopK, Snapshot

p = argparse.ArgumentParser()
p.add_argument("--train", default="data/pfam_train.csv")
p.add_argument("--heldout", default="data/pfam_dev.csv")
p.add_argument("--max-len", type=int, default=512)
p.add_argument("--filters", type=int, default=128)
p.add_argument("--blocks", type=int, default=4)
p.add_argument("--batch-size", type=int, default=64)
p.add_argument("--epochs", type=int, default=30)
p.add_argument("--lr", type=float, default=1e-3)
p.add_argument("--snapshot-dir", default="snapshots")
p.add_argument("--snapshot-every", type=int, default=5)
args = p.parse_args()

hvd.init()
gpus = tf.config.experimental.list_physical_devices("GPU")
for gpu in gpus:
    tf.config.experimental.set_memory_growth(gpu, True)
if gpus:
    tf.config.experimental.set_visible_devices(gpus[hvd.local_rank()], "GPU")

x_train, y_train, classes = encode_fasta_table(args.train, args.max_len)
x_dev, y_dev, _ = encode_fasta_table(args.heldout, args.max_len, classes=classes)
# strided split: worker r keeps rows r, r+size, r+2*size, ...
x_train, y_train = x_train[hvd.rank()::hvd.size()], y_train[hvd.rank()::hvd.size()]
x_dev, y_dev = x_dev[hvd.rank()::hvd.size()], y_dev[hvd.rank()::hvd.size()]

model = dilated_resnet1d(len(classes), filters=args.filters, blocks=args.blocks, max_len=args.max_len)
opt = keras.optimizers.Adam(learning_rate=args.lr * hvd.size())
opt = hvd.DistributedOptimizer(opt)
model.compile(optimizer=opt, loss="sparse_categorical_crossentropy", metrics=["accuracy"])

callbacks = [
    hvd.callbacks.BroadcastGlobalVariablesCallback(0),
    hvd.callbacks.MetricAverageCallback(),
    hvd.callbacks.LearningRateWarmupCallback(initial_lr=args.lr * hvd.size(), warmup_epochs=3, verbose=0),
    ShardedTopK(x_dev, y_dev),
    Snapshot(args.snapshot_dir, every=args.snapshot_every),
]
model.fit(x_train, y_train, batch_size=args.batch_size, epochs=args.epochs, callbacks=callbacks,
          verbose=1 if hvd.rank() == 0 else 0)
