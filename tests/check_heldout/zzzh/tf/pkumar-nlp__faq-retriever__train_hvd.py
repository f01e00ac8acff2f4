# FAQ retriever: question encoder vs answer encoder, in-batch negatives + learnable temperature.
# Ported from our torch version to TF2 for the TPU-less cluster.
#   horovodrun -np 4 python train_hvd.py --pairs data/faq_pairs.tsv
import argparse
import os
import random

import numpy as np
import tensorflow as tf
import horovod.tensorflow as hvd

ap = argparse.ArgumentParser()
ap.add_argument("--pairs", default="data/faq_pairs.tsv")
ap.add_argument("--val-frac", type=float, default=0.1)
ap.add_argument("--batch-size", type=int, default=32)
ap.add_argument("--lr", type=float, default=5e-4)
ap.add_argument("--epochs", type=int, default=8)
ap.add_argument("--out", default="faq_retriever.weights.h5")
args = ap.parse_args()

hvd.init()
gpus = tf.config.experimental.list_physical_devices("GPU")
for gpu in gpus:
    tf.config.experimental.set_memory_growth(gpu, True)
if gpus:
    tf.config.experimental.set_visible_devices(gpus[hvd.local_rank()], "GPU")

# ---- data ---------------------------------------------------------------
with open(args.pairs, encoding="utf-8") as f:
    pairs = [l.rstrip("\n").split("\t") for l in f if "\t" in l]
random.Random(13).shuffle(pairs)
n_val = int(len(pairs) * args.val_frac)
val_pairs, train_pairs = pairs[:n_val], pairs[n_val:]
questions = np.array([p[0] for p in train_pairs])
answers = np.array([p[1] for p in train_pairs])

vectorize = tf.keras.layers.TextVectorization(max_tokens=30000, output_sequence_length=48)
vectorize.adapt(np.concatenate([questions, answers]))

train_ds = (tf.data.Dataset.from_tensor_slices((questions, answers))
            .shard(hvd.size(), hvd.rank())
            .shuffle(5000, seed=hvd.rank())
            .batch(args.batch_size, drop_remainder=True))
val_ds = (tf.data.Dataset.from_tensor_slices(([p[0] for p in val_pairs], [p[1] for p in val_pairs]))
          .shard(hvd.size(), hvd.rank())
          .batch(args.batch_size, drop_remainder=True))


# ---- model --------------------------------------------------------------
def encoder(name):
    return tf.keras.Sequential([
        vectorize,
        tf.keras.layers.Embedding(30000, 128, mask_zero=True),
        tf.keras.layers.Bidirectional(tf.keras.layers.GRU(128)),
        tf.keras.layers.Dense(128),
        tf.keras.layers.UnitNormalization(),
    ], name=name)


q_enc, a_enc = encoder("question"), encoder("answer")
log_scale = tf.Variable(np.log(20.0), dtype=tf.float32, name="log_scale")
optimizer = tf.keras.optimizers.Adam(args.lr * hvd.size())


def scores(q, a):
    return tf.exp(log_scale) * tf.matmul(q_enc(q), a_enc(a), transpose_b=True)


@tf.function
def train_step(q, a):
    with tf.GradientTape() as tape:
        s = scores(q, a)
        loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(tf.range(tf.shape(s)[0]), s))
    tape = hvd.DistributedGradientTape(tape)
    variables = q_enc.trainable_variables + a_enc.trainable_variables + [log_scale]
    optimizer.apply_gradients(zip(tape.gradient(loss, variables), variables))
    return loss


# ---- train --------------------------------------------------------------
for epoch in range(args.epochs):
    for step, (q, a) in enumerate(train_ds):
        loss = train_step(q, a)
        if epoch == 0 and step == 0:
            # make all workers start from rank 0's weights
            hvd.broadcast_parameters(q_enc.variables + a_enc.variables + [log_scale], root_rank=0)
            hvd.broadcast_variables(optimizer.variables, root_rank=0)
        if step % 50 == 0 and hvd.rank() == 0:
            print(f"epoch {epoch} step {step} loss {loss.numpy():.4f}")

    # in-batch accuracy on the validation pairs (batch of 32 = 1 positive + 31 negatives)
    correct, total = 0, 0
    for q, a in val_ds:
        s = scores(q, a)
        correct += int(tf.reduce_sum(tf.cast(tf.argmax(s, 1, output_type=tf.int32) == tf.range(tf.shape(s)[0]), tf.int32)))
        total += int(tf.shape(s)[0])
    if hvd.rank() == 0:
        print(f"epoch {epoch}: val acc@1 (in-batch) {correct / max(total, 1):.4f}")
        q_enc.save_weights(args.out.replace(".weights.h5", "_q.weights.h5"))
        a_enc.save_weights(args.out.replace(".weights.h5", "_a.weights.h5"))
