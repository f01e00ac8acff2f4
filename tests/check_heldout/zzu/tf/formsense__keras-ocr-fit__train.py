"""Fit a CRNN with CTC loss on form-field crops, one Horovod worker per GPU."""
import argparse
import math

import keras
import tensorflow as tf
import horovod.tensorflow.keras as hvd

from ocrfit.callbacks import build_callbacks
from ocrfit.data import make_dataset
from ocrfit.model import build_crnn
from ocrfit.vocab import build_charset, encode, read_manifest

parser = argparse.ArgumentParser()
parser.add_argument("--train-manifest", default="manifests/train.tsv")
parser.add_argument("--val-manifest", default="manifests/val.tsv")
parser.add_argument("--out-dir", default="outputs/crnn")
parser.add_argument("--batch-size", type=int, default=64)
parser.add_argument("--epochs", type=int, default=25)
parser.add_argument("--lr", type=float, default=5e-4)
parser.add_argument("--warmup-epochs", type=int, default=2)
parser.add_argument("--max-len", type=int, default=48)
args = parser.parse_args()

hvd.init()
for gpu in tf.config.list_physical_devices("GPU"):
    tf.config.experimental.set_memory_growth(gpu, True)
gpus = tf.config.list_physical_devices("GPU")
if gpus:
    tf.config.set_visible_devices(gpus[hvd.local_rank()], "GPU")

train_paths, train_texts = read_manifest(args.train_manifest)
val_paths, val_texts = read_manifest(args.val_manifest)
charset = build_charset(train_texts, val_texts)

train_ds = make_dataset(train_paths, encode(train_texts, charset, args.max_len), args.batch_size,
                        hvd.size(), hvd.rank(), training=True, seed=hvd.rank())
val_ds = make_dataset(val_paths, encode(val_texts, charset, args.max_len), args.batch_size,
                      hvd.size(), hvd.rank(), training=False)
steps_per_epoch = len(train_paths) // (args.batch_size * hvd.size())
val_steps = max(1, len(val_paths) // (args.batch_size * hvd.size()))

model = build_crnn(len(charset))
opt = keras.optimizers.Adam(learning_rate=args.lr * hvd.size(), clipnorm=5.0)
model.compile(optimizer=hvd.DistributedOptimizer(opt), loss=keras.losses.CTC())

callbacks = build_callbacks(args.out_dir, args.lr, args.warmup_epochs, steps_per_epoch)
model.fit(train_ds, epochs=args.epochs, steps_per_epoch=steps_per_epoch,
          validation_data=val_ds, validation_steps=val_steps,
          callbacks=callbacks, verbose=1 if hvd.rank() == 0 else 0)

if hvd.rank() == 0:
    model.save(f"{args.out_dir}/crnn_final.keras")
    with open(f"{args.out_dir}/charset.txt", "w", encoding="utf-8") as fh:
        fh.write("".join(charset))
