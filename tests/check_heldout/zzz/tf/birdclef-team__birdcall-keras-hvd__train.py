"""BirdCLEF baseline: 5 s windows of long xeno-canto recordings, multi-label sigmoid head.

Recordings are split between workers by file (np.array_split of the sorted list), every recording is cut
into 5 s windows, and all workers run as many steps as the worker with the fewest windows allows.

    horovodrun -np 4 -H localhost:4 python train.py --audio-dir /data/birdclef/npy32k
"""
import argparse
import csv
import json
import os

import numpy as np
import tensorflow as tf
import keras
import horovod.tensorflow.keras as hvd

SR = 32000
WINDOW = 5 * SR

ap = argparse.ArgumentParser()
ap.add_argument("--audio-dir", default="/data/birdclef/npy32k")
ap.add_argument("--meta", default="/data/birdclef/train_metadata.csv")
ap.add_argument("--batch", type=int, default=48)
ap.add_argument("--lr", type=float, default=1e-3)
ap.add_argument("--epochs", type=int, default=25)
ap.add_argument("--warmup-steps", type=int, default=500)
ap.add_argument("--out", default="models/birdclef")
ap.add_argument("--valid-every", type=int, default=5)
opts = ap.parse_args()

hvd.init()
gpus = tf.config.list_physical_devices("GPU")
if gpus:
    tf.config.experimental.set_memory_growth(gpus[hvd.local_rank()], True)
    tf.config.set_visible_devices(gpus[hvd.local_rank()], "GPU")


def read_meta(path):
    rows = list(csv.DictReader(open(path)))
    species = sorted({r["primary_label"] for r in rows})
    idx = {s: i for i, s in enumerate(species)}
    items = []
    for r in rows:
        y = np.zeros(len(species), np.float32)
        y[idx[r["primary_label"]]] = 1.0
        for s in r.get("secondary_labels", "").split():
            if s in idx:
                y[idx[s]] = 0.5   # soft label for background species
        items.append((r["filename"].replace(".ogg", ".npy"), y, r.get("fold", "0")))
    return sorted(items, key=lambda it: it[0]), species


def windows_of(items):
    out = []
    for name, y, _ in items:
        n = np.load(os.path.join(opts.audio_dir, name), mmap_mode="r").shape[0]
        out += [(name, s, y) for s in range(0, max(n - WINDOW, 0) + 1, WINDOW)]
    return out


def gen(windows, shuffle):
    def _g():
        order = np.random.permutation(len(windows)) if shuffle else np.arange(len(windows))
        for i in order:
            name, start, y = windows[i]
            wav = np.load(os.path.join(opts.audio_dir, name), mmap_mode="r")[start:start + WINDOW]
            x = np.zeros(WINDOW, np.float32)
            x[:len(wav)] = wav
            yield x, y
    return _g


def log_mel(x):
    spec = tf.abs(tf.signal.stft(x, 2048, 512, pad_end=True)) ** 2
    fb = tf.signal.linear_to_mel_weight_matrix(128, 1025, SR, 50.0, 14000.0)
    mel = tf.math.log(tf.matmul(spec, fb) + 1e-6)
    return (mel - tf.reduce_mean(mel, axis=[1, 2], keepdims=True))[..., None]


def build_model(n_species):
    inp = keras.Input((WINDOW,))
    x = keras.layers.Lambda(log_mel)(inp)
    for f in (32, 64, 128, 256):
        x = keras.layers.SeparableConv2D(f, 3, padding="same", activation="swish")(x)
        x = keras.layers.BatchNormalization()(x)
        x = keras.layers.MaxPooling2D(2)(x)
    x = keras.layers.GlobalAveragePooling2D()(x)
    return keras.Model(inp, keras.layers.Dense(n_species, activation="sigmoid")(x))


def padded_cmap(y_true, y_pred, pad=5):
    n = y_true.shape[1]
    y_true = np.vstack([y_true >= 1.0, np.ones((pad, n))])
    y_pred = np.vstack([y_pred, np.ones((pad, n))])
    aps = []
    for c in range(n):
        order = np.argsort(-y_pred[:, c])
        hit = y_true[order, c]
        aps.append((np.cumsum(hit) / np.arange(1, len(hit) + 1) * hit).sum() / hit.sum())
    return float(np.mean(aps))


items, species = read_meta(opts.meta)
train_items = [it for it in items if it[2] != "0"]
valid_items = [it for it in items if it[2] == "0"]
my_train = windows_of([train_items[i] for i in np.array_split(np.arange(len(train_items)), hvd.size())[hvd.rank()]])
my_valid = windows_of([valid_items[i] for i in np.array_split(np.arange(len(valid_items)), hvd.size())[hvd.rank()]])

counts = hvd.allgather(np.array([len(my_train)], dtype=np.int64))
steps_per_epoch = int(np.min(counts)) // opts.batch

sig = (tf.TensorSpec((WINDOW,), tf.float32), tf.TensorSpec((len(species),), tf.float32))
train_ds = (tf.data.Dataset.from_generator(gen(my_train, True), output_signature=sig)
            .repeat().batch(opts.batch, drop_remainder=True).prefetch(4))

schedule = keras.optimizers.schedules.CosineDecay(
    initial_learning_rate=opts.lr * 0.1, decay_steps=opts.epochs * steps_per_epoch,
    warmup_target=opts.lr * hvd.size(), warmup_steps=opts.warmup_steps)
model = build_model(len(species))
model.compile(optimizer=hvd.DistributedOptimizer(keras.optimizers.AdamW(learning_rate=schedule,
                                                                        weight_decay=1e-4)),
              loss=keras.losses.BinaryCrossentropy(label_smoothing=0.01))

cbs = [hvd.callbacks.BroadcastGlobalVariablesCallback(0), hvd.callbacks.MetricAverageCallback()]
if hvd.rank() == 0:
    os.makedirs(opts.out, exist_ok=True)
    cbs.append(keras.callbacks.ModelCheckpoint(os.path.join(opts.out, "epoch{epoch:02d}.weights.h5"),
                                               save_weights_only=True))

model.fit(train_ds, steps_per_epoch=steps_per_epoch, epochs=opts.epochs, callbacks=cbs,
          verbose=2 if hvd.rank() == 0 else 0)

# every worker predicts its own validation windows; rank 0 scores the gathered set
valid_x = np.stack([x for x, _ in gen(my_valid, False)()]) if my_valid else np.zeros((0, WINDOW), np.float32)
valid_y = np.stack([w[2] for w in my_valid]) if my_valid else np.zeros((0, len(species)), np.float32)
preds = model.predict(valid_x, batch_size=opts.batch, verbose=0) if len(valid_x) else valid_y
all_preds = np.asarray(hvd.allgather(preds.astype(np.float32), name="valid_preds"))
all_true = np.asarray(hvd.allgather(valid_y.astype(np.float32), name="valid_true"))
if hvd.rank() == 0:
    score = padded_cmap(all_true, all_preds)
    print(json.dumps({"padded_cmAP": score, "valid_windows": int(len(all_true))}))
