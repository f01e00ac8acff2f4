"""Stage 2 of the tiny-text-student recipe: task distillation on SST-2.

Stage 1 (train_stage1.py) distilled the general-domain encoder. Here the student encoder is
restored from stage 1 and trained on the task with soft targets precomputed from the
fine-tuned BERT-base teacher (teacher_logits.npy, produced by dump_teacher_logits.py):
  phase A: encoder frozen, classifier head only
  phase B: everything unfrozen
"""
import argparse
import os

import numpy as np
import tensorflow as tf
import keras
from keras import layers
import horovod.tensorflow.keras as hvd

parser = argparse.ArgumentParser()
parser.add_argument("--data-dir", default="data/sst2_tok")
parser.add_argument("--stage1-weights", default="out/stage1/encoder.weights.h5")
parser.add_argument("--out-dir", default="out/stage2")
parser.add_argument("--max-len", type=int, default=64)
parser.add_argument("--vocab", type=int, default=30522)
parser.add_argument("--batch-size", type=int, default=32)
parser.add_argument("--head-lr", type=float, default=1e-3)
parser.add_argument("--ft-lr", type=float, default=5e-5)
parser.add_argument("--head-epochs", type=int, default=2)
parser.add_argument("--ft-epochs", type=int, default=6)
parser.add_argument("--temperature", type=float, default=2.0)
parser.add_argument("--alpha", type=float, default=0.5, help="weight of the gold label")
args = parser.parse_args()

hvd.init()
gpus = tf.config.list_physical_devices("GPU")
for g in gpus:
    tf.config.experimental.set_memory_growth(g, True)
if gpus:
    tf.config.set_visible_devices(gpus[hvd.local_rank()], "GPU")


def soft_targets(labels, t_logits, T, alpha):
    onehot = np.eye(2, dtype=np.float32)[labels]
    z = t_logits / T
    p = np.exp(z - z.max(1, keepdims=True))
    p /= p.sum(1, keepdims=True)
    return alpha * onehot + (1 - alpha) * p


def make_ds(split, shuffle):
    ids = np.load(os.path.join(args.data_dir, f"{split}_ids.npy"))[:, :args.max_len]
    labels = np.load(os.path.join(args.data_dir, f"{split}_labels.npy"))
    if split == "train":
        t_logits = np.load(os.path.join(args.data_dir, "teacher_logits.npy"))
        y = soft_targets(labels, t_logits, args.temperature, args.alpha)
    else:
        y = np.eye(2, dtype=np.float32)[labels]
    ds = tf.data.Dataset.from_tensor_slices((ids, y)).shard(hvd.size(), hvd.rank())
    if shuffle:
        ds = ds.shuffle(10000).repeat()
    return ds.batch(args.batch_size).prefetch(tf.data.AUTOTUNE), len(labels)


class TokenAndPosition(layers.Layer):
    def __init__(self, vocab, max_len, dim, **kw):
        super().__init__(**kw)
        self.tok = layers.Embedding(vocab, dim)
        self.pos = layers.Embedding(max_len, dim)

    def call(self, ids):
        positions = keras.ops.arange(keras.ops.shape(ids)[-1])
        return self.tok(ids) + self.pos(positions)


class EncoderBlock(layers.Layer):
    def __init__(self, dim=256, heads=4, ff=1024, **kw):
        super().__init__(**kw)
        self.att = layers.MultiHeadAttention(heads, dim // heads)
        self.ffn = keras.Sequential([layers.Dense(ff, activation="gelu"), layers.Dense(dim)])
        self.n1, self.n2 = layers.LayerNormalization(), layers.LayerNormalization()

    def call(self, x):
        x = self.n1(x + self.att(x, x))
        return self.n2(x + self.ffn(x))


def build_student():
    tokens = keras.Input((args.max_len,), dtype="int32")
    x = TokenAndPosition(args.vocab, args.max_len, 256, name="embeddings")(tokens)
    encoder = keras.Sequential([EncoderBlock(name=f"block{i}") for i in range(4)], name="encoder")
    h = encoder(x)
    out = layers.Dense(2)(layers.Dropout(0.1)(layers.GlobalAveragePooling1D()(h)))
    return keras.Model(tokens, out), encoder


def make_callbacks(tag):
    os.makedirs(args.out_dir, exist_ok=True)
    return [
        hvd.callbacks.BroadcastGlobalVariablesCallback(0),
        hvd.callbacks.MetricAverageCallback(),
        keras.callbacks.ModelCheckpoint(os.path.join(args.out_dir, f"{tag}-best.weights.h5"),
                                        monitor="val_accuracy", save_best_only=True, save_weights_only=True),
    ]


(train_ds, n_train), (val_ds, _) = make_ds("train", True), make_ds("dev", False)
steps_per_epoch = n_train // hvd.size() // args.batch_size
model, encoder = build_student()
encoder.load_weights(args.stage1_weights)
loss = keras.losses.CategoricalCrossentropy(from_logits=True)
verbose = 2 if hvd.rank() == 0 else 0

# phase A: head only
encoder.trainable = False
model.compile(optimizer=hvd.DistributedOptimizer(keras.optimizers.Adam(args.head_lr)), loss=loss,
              metrics=["accuracy"])
model.fit(train_ds, validation_data=val_ds, epochs=args.head_epochs, steps_per_epoch=steps_per_epoch,
          callbacks=make_callbacks("head"), verbose=verbose)

# phase B: full fine-tune with a linear decay
encoder.trainable = True
schedule = keras.optimizers.schedules.PolynomialDecay(args.ft_lr, args.ft_epochs * steps_per_epoch,
                                                      end_learning_rate=0.0)
model.compile(optimizer=hvd.DistributedOptimizer(keras.optimizers.AdamW(schedule, weight_decay=0.01)),
              loss=loss, metrics=["accuracy"])
model.fit(train_ds, validation_data=val_ds, epochs=args.ft_epochs, steps_per_epoch=steps_per_epoch,
          callbacks=make_callbacks("full"), verbose=verbose)

if hvd.rank() == 0:
    model.save_weights(os.path.join(args.out_dir, "student_final.weights.h5"))
