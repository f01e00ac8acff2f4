"""IMDB-style sentiment classification with a BiGRU, Keras 3 + Horovod.

    horovodrun -np 4 python train.py --train-csv data/train.csv --valid-csv data/valid.csv
"""
import argparse
import math

import tensorflow as tf
import keras
import horovod.tensorflow.keras as hvd

from sentiment.callbacks import distributed_callbacks
from sentiment.data import build_vectorizer, make_dataset, read_reviews
from sentiment.model import bigru_classifier
from sentiment.text import describe

hvd.init()

for gpu in tf.config.list_physical_devices("GPU"):
    tf.config.experimental.set_memory_growth(gpu, True)
gpus = tf.config.list_physical_devices("GPU")
if gpus:
    tf.config.set_visible_devices(gpus[hvd.local_rank()], "GPU")

parser = argparse.ArgumentParser()
parser.add_argument("--train-csv", default="data/train.csv")
parser.add_argument("--valid-csv", default="data/valid.csv")
parser.add_argument("--batch-size", type=int, default=64)
parser.add_argument("--base-lr", type=float, default=1e-3)
parser.add_argument("--epochs", type=int, default=10)
parser.add_argument("--warmup-epochs", type=int, default=2)
parser.add_argument("--ckpt-dir", default="checkpoints/bigru")
args = parser.parse_args()

train_x, train_y = read_reviews(args.train_csv)
valid_x, valid_y = read_reviews(args.valid_csv)
vectorizer = build_vectorizer(train_x)
if hvd.rank() == 0:
    print("vocabulary:", describe(vectorizer))

train_ds = make_dataset(train_x, train_y, vectorizer, args.batch_size, hvd.size(), hvd.rank(), seed=hvd.rank())
valid_ds = make_dataset(valid_x, valid_y, vectorizer, args.batch_size, hvd.size(), hvd.rank(), training=False)
steps_per_epoch = math.ceil(len(train_x) / (args.batch_size * hvd.size()))
valid_steps = len(valid_x) // (args.batch_size * hvd.size())
valid_ds = valid_ds.take(valid_steps)

model = bigru_classifier(vectorizer.vocabulary_size())
scaled_lr = args.base_lr * hvd.size()
opt = hvd.DistributedOptimizer(keras.optimizers.Adam(learning_rate=scaled_lr, clipnorm=None))
model.compile(optimizer=opt,
              loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True),
              metrics=["accuracy"])

history = model.fit(train_ds,
                    steps_per_epoch=steps_per_epoch,
                    epochs=args.epochs,
                    validation_data=valid_ds,
                    callbacks=distributed_callbacks(scaled_lr, args.warmup_epochs, args.ckpt_dir, steps_per_epoch),
                    verbose=1 if hvd.rank() == 0 else 0)

# final numbers over every rank's validation shard
loss, acc = model.evaluate(valid_ds, verbose=0)
loss = float(hvd.allreduce(tf.constant(loss), name="final_val_loss"))
acc = float(hvd.allreduce(tf.constant(acc), name="final_val_acc"))
if hvd.rank() == 0:
    print({k: round(v[-1], 4) for k, v in history.history.items()})
    print(f"final: val_loss={loss:.4f} val_acc={acc:.4f}")
    model.save(f"{args.ckpt_dir}/final.keras")
