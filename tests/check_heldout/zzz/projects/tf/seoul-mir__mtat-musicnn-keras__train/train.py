"""MagnaTagATune top-50 auto-tagging with a musicnn-style model (Keras 3 + Horovod).

horovodrun -np 4 python train.py --data /data/mtat/chunks --epochs 40
"""
import argparse
import json

import numpy as np
import keras
import horovod.tensorflow.keras as hvd

from musicnn.data import load_split, make_dataset, roc_auc_pr_auc
from musicnn.hvd_utils import callbacks, init_horovod
from musicnn.model import musicnn_like

parser = argparse.ArgumentParser()
parser.add_argument("--data", default="/data/mtat/chunks")
parser.add_argument("--ckpt-dir", default="ckpt/musicnn")
parser.add_argument("--epochs", type=int, default=40)
parser.add_argument("--batch-size", type=int, default=32)
parser.add_argument("--base-lr", type=float, default=1e-3)
parser.add_argument("--warmup-epochs", type=int, default=2)
FLAGS = parser.parse_args()

rank, world = init_horovod()
keras.utils.set_random_seed(1 + rank)

x_train, y_train = load_split(FLAGS.data, "train")
x_valid, y_valid = load_split(FLAGS.data, "valid")
train_ds = make_dataset(x_train, y_train, FLAGS.batch_size, shard=(world, rank), seed=rank)
valid_ds = make_dataset(x_valid, y_valid, FLAGS.batch_size, training=False)
steps_per_epoch = len(x_train) // (FLAGS.batch_size * world)

model = musicnn_like(x_train.shape[1], n_tags=y_train.shape[1])
lr = FLAGS.base_lr * world
opt = hvd.DistributedOptimizer(keras.optimizers.Adam(learning_rate=lr))
model.compile(optimizer=opt, loss="binary_crossentropy",
              metrics=[keras.metrics.AUC(multi_label=True, name="roc_auc"),
                       keras.metrics.AUC(curve="PR", multi_label=True, name="pr_auc")])
if rank == 0:
    model.summary()

history = model.fit(train_ds, epochs=FLAGS.epochs, steps_per_epoch=steps_per_epoch,
                    validation_data=valid_ds,
                    callbacks=callbacks(lr, FLAGS.warmup_epochs, FLAGS.ckpt_dir, steps_per_epoch),
                    verbose=2 if rank == 0 else 0)

if rank == 0:
    scores = model.predict(valid_ds, verbose=0)
    roc, pr = roc_auc_pr_auc(y_valid, scores)
    print(json.dumps({"chunk_roc_auc": roc, "chunk_pr_auc": pr,
                      "val_loss": float(np.min(history.history["val_loss"]))}))
