# -*- coding: utf-8 -*-
# zh->en LSTM NMT baseline, Keras 3 + horovod.tensorflow.keras
# horovodrun -np 4 -H localhost:4 python train_keras.py --data ./corpus
import argparse
import json
import os

import numpy as np
import tensorflow as tf
import keras
import horovod.tensorflow.keras as hvd

ap = argparse.ArgumentParser()
ap.add_argument("--data", default="./corpus")
ap.add_argument("--maxlen", type=int, default=50)
ap.add_argument("--batch", type=int, default=128)
ap.add_argument("--lr", type=float, default=5e-4)
ap.add_argument("--epochs", type=int, default=30)
ap.add_argument("--warmup", type=int, default=3)
ap.add_argument("--units", type=int, default=512)
ap.add_argument("--out", default="./models")
args = ap.parse_args()

hvd.init()
gpus = tf.config.list_physical_devices("GPU")
for g in gpus:
    tf.config.experimental.set_memory_growth(g, True)
if gpus:
    tf.config.set_visible_devices(gpus[hvd.local_rank()], "GPU")


def build_or_load_vocab(lines, path, char_level):
    if os.path.exists(path):
        return json.load(open(path, encoding="utf-8"))
    toks = sorted({t for l in lines for t in (l if char_level else l.split())})
    vocab = {t: i + 4 for i, t in enumerate(toks)}
    if hvd.rank() == 0:
        json.dump(vocab, open(path, "w", encoding="utf-8"), ensure_ascii=False)
    return vocab


def vectorize(lines, vocab, char_level, add_bos):
    seqs = []
    for l in lines:
        ids = [vocab.get(t, 3) for t in (l if char_level else l.split())][: args.maxlen - 2]
        seqs.append(([1] if add_bos else []) + ids + [2])
    return keras.utils.pad_sequences(seqs, maxlen=args.maxlen, padding="post")


zh = open(os.path.join(args.data, "train.zh"), encoding="utf-8").read().splitlines()
en = open(os.path.join(args.data, "train.en"), encoding="utf-8").read().splitlines()
zh_vocab = build_or_load_vocab(zh, os.path.join(args.data, "vocab.zh.json"), True)
en_vocab = build_or_load_vocab(en, os.path.join(args.data, "vocab.en.json"), False)
X = vectorize(zh, zh_vocab, True, False)
Y = vectorize(en, en_vocab, False, True)

n_val = 2000
X_tr, Y_tr, X_va, Y_va = X[n_val:], Y[n_val:], X[:n_val], Y[:n_val]
# each worker takes its own slice of both splits
X_tr, Y_tr = X_tr[hvd.rank()::hvd.size()], Y_tr[hvd.rank()::hvd.size()]
X_va, Y_va = X_va[hvd.rank()::hvd.size()], Y_va[hvd.rank()::hvd.size()]

src_in = keras.Input((None,), name="src")
tgt_in = keras.Input((None,), name="tgt")
enc_seq, h, c = keras.layers.LSTM(args.units, return_sequences=True, return_state=True)(
    keras.layers.Embedding(len(zh_vocab) + 4, 256, mask_zero=True)(src_in))
dec_seq = keras.layers.LSTM(args.units, return_sequences=True)(
    keras.layers.Embedding(len(en_vocab) + 4, 256, mask_zero=True)(tgt_in), initial_state=[h, c])
att = keras.layers.AdditiveAttention()([dec_seq, enc_seq])
out = keras.layers.Dense(len(en_vocab) + 4)(keras.layers.Concatenate()([dec_seq, att]))
model = keras.Model([src_in, tgt_in], out)

opt = keras.optimizers.Adam(learning_rate=args.lr * hvd.size(), clipnorm=1.0)
opt = hvd.DistributedOptimizer(opt)
model.compile(optimizer=opt,
              loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True, ignore_class=0),
              metrics=["sparse_categorical_accuracy"])

os.makedirs(args.out, exist_ok=True)
callbacks = [
    hvd.callbacks.BroadcastGlobalVariablesCallback(0),
    hvd.callbacks.LearningRateWarmupCallback(warmup_epochs=args.warmup, verbose=1),
    keras.callbacks.ReduceLROnPlateau(patience=2, factor=0.5),
    keras.callbacks.ModelCheckpoint(os.path.join(args.out, "nmt-best.keras"), monitor="val_loss",
                                    save_best_only=True),
    keras.callbacks.EarlyStopping(patience=5, restore_best_weights=True),
]

model.fit([X_tr, Y_tr[:, :-1]], Y_tr[:, 1:],
          validation_data=([X_va, Y_va[:, :-1]], Y_va[:, 1:]),
          batch_size=args.batch, epochs=args.epochs, callbacks=callbacks,
          verbose=2 if hvd.rank() == 0 else 0)

if hvd.rank() == 0:
    model.save(os.path.join(args.out, "nmt-final.keras"))
