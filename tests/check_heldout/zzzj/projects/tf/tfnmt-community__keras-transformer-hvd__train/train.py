"""Keras 3 + Horovod training for a GRU-attention NMT model with token-budget batches."""
import os

import numpy as np
import tensorflow as tf
import keras
import horovod.tensorflow.keras as hvd

from ktnmt.callbacks import GreedyBleu
from ktnmt.config import TrainConfig
from ktnmt.data import encode_pairs, load_vocab, make_lookup, token_bucketed
from ktnmt.model import build_model, smoothed_loss
from ktnmt.schedules import InverseSqrtSchedule

hvd.init()
for gpu in tf.config.list_physical_devices("GPU"):
    tf.config.experimental.set_memory_growth(gpu, True)
gpus = tf.config.list_physical_devices("GPU")
if gpus:
    tf.config.set_visible_devices(gpus[hvd.local_rank()], "GPU")

cfg = TrainConfig()
os.makedirs(cfg.out_dir, exist_ok=True)
vocab = load_vocab(cfg, hvd.rank())
lookup = make_lookup(vocab)
V = lookup.vocabulary_size()

train = encode_pairs(cfg.train_src, cfg.train_tgt, lookup, cfg.max_len)
train = train.shard(hvd.size(), hvd.rank()).shuffle(20000, seed=hvd.rank())
train = token_bucketed(train, cfg.max_tokens, cfg.max_len).repeat().prefetch(tf.data.AUTOTUNE)
avg_batch = cfg.max_tokens // 24
steps_per_epoch = cfg.num_train_examples // (avg_batch * hvd.size())

dev = [(s.numpy(), t.numpy()[1:-1].tolist())
       for s, t in encode_pairs(cfg.dev_src, cfg.dev_tgt, lookup, cfg.max_len).take(500)]

model = build_model(V, cfg.d_model)
schedule = InverseSqrtSchedule(cfg.peak_lr * hvd.size(), cfg.warmup_updates)
opt = hvd.DistributedOptimizer(keras.optimizers.Adam(schedule, beta_1=0.9, beta_2=0.98, epsilon=1e-9))
model.compile(optimizer=opt, loss=smoothed_loss(V, cfg.label_smoothing))

callbacks = [
    hvd.callbacks.BroadcastGlobalVariablesCallback(0),
    hvd.callbacks.MetricAverageCallback(),
]
if hvd.rank() == 0:
    callbacks += [
        GreedyBleu(dev, cfg.max_len),
        keras.callbacks.ModelCheckpoint(os.path.join(cfg.out_dir, "ckpt-{epoch:02d}.weights.h5"),
                                        save_weights_only=True),
        keras.callbacks.CSVLogger(os.path.join(cfg.out_dir, "log.csv")),
    ]

model.fit(train, epochs=cfg.epochs, steps_per_epoch=steps_per_epoch, callbacks=callbacks,
          verbose=1 if hvd.rank() == 0 else 0)

if hvd.rank() == 0:
    # average the weights of the last five epoch checkpoints into a final model
    weights = []
    for e in range(max(1, cfg.epochs - 4), cfg.epochs + 1):
        model.load_weights(os.path.join(cfg.out_dir, f"ckpt-{e:02d}.weights.h5"))
        weights.append(model.get_weights())
    model.set_weights([np.mean(ws, axis=0) for ws in zip(*weights)])
    model.save_weights(os.path.join(cfg.out_dir, "averaged.weights.h5"))
