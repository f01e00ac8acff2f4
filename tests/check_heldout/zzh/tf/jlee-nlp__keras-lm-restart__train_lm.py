# Character-level LSTM language model on a plain-text corpus.
# Multi-GPU with horovod.tensorflow.keras; survives preemption on the cluster thanks to
# BackupAndRestore (the job is simply resubmitted with the same --workdir).
import argparse
import os

import numpy as np
import tensorflow as tf
import keras
import horovod.tensorflow.keras as hvd

parser = argparse.ArgumentParser(description="char-LSTM LM (horovod)")
parser.add_argument("--corpus", default="data/input.txt")
parser.add_argument("--workdir", default="runs/char_lstm")
parser.add_argument("--seq-len", type=int, default=100)
parser.add_argument("--batch-size", type=int, default=64)
parser.add_argument("--units", type=int, default=512)
parser.add_argument("--epochs", type=int, default=30)
parser.add_argument("--lr", type=float, default=2e-3)
parser.add_argument("--warmup-epochs", type=int, default=3)
args = parser.parse_args()

hvd.init()
gpus = tf.config.experimental.list_physical_devices("GPU")
for g in gpus:
    tf.config.experimental.set_memory_growth(g, True)
if gpus:
    tf.config.experimental.set_visible_devices(gpus[hvd.local_rank()], "GPU")

text = open(args.corpus, encoding="utf-8").read()
vocab = sorted(set(text))
char2idx = {c: i for i, c in enumerate(vocab)}
ids = np.array([char2idx[c] for c in text], dtype=np.int32)
n_val = len(ids) // 20


def windows(arr, shuffle):
    ds = tf.data.Dataset.from_tensor_slices(arr).batch(args.seq_len + 1, drop_remainder=True)
    ds = ds.map(lambda chunk: (chunk[:-1], chunk[1:]))
    if shuffle:
        ds = ds.shuffle(10000)
    return ds.batch(args.batch_size, drop_remainder=True).prefetch(tf.data.AUTOTUNE)


train_ds = windows(ids[:-n_val], shuffle=True)
val_ds = windows(ids[-n_val:], shuffle=False)

model = keras.Sequential([
    keras.Input((None,), dtype="int32"),
    keras.layers.Embedding(len(vocab), 256),
    keras.layers.LSTM(args.units, return_sequences=True),
    keras.layers.Dropout(0.2),
    keras.layers.LSTM(args.units, return_sequences=True),
    keras.layers.Dense(len(vocab)),
])

scaled_lr = args.lr * hvd.size()
opt = hvd.DistributedOptimizer(keras.optimizers.Adam(scaled_lr, clipnorm=5.0))
model.compile(optimizer=opt,
              loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True),
              metrics=["sparse_categorical_accuracy"])

os.makedirs(args.workdir, exist_ok=True)
callbacks = [
    hvd.callbacks.BroadcastGlobalVariablesCallback(0),
    hvd.callbacks.MetricAverageCallback(),
    hvd.callbacks.LearningRateWarmupCallback(warmup_epochs=args.warmup_epochs, verbose=1),
    keras.callbacks.BackupAndRestore(backup_dir=os.path.join(args.workdir, "backup")),
    keras.callbacks.ReduceLROnPlateau(monitor="val_loss", factor=0.5, patience=3),
]
if hvd.rank() == 0:
    callbacks.append(keras.callbacks.ModelCheckpoint(os.path.join(args.workdir, "best.weights.h5"),
                                                     save_weights_only=True, save_best_only=True))

model.fit(train_ds, validation_data=val_ds, epochs=args.epochs, callbacks=callbacks,
          verbose=2 if hvd.rank() == 0 else 0)

if hvd.rank() == 0:
    model.save(os.path.join(args.workdir, "char_lstm.keras"))
    with open(os.path.join(args.workdir, "vocab.txt"), "w", encoding="utf-8") as fh:
        fh.write("".join(vocab))
