# TextCNN sentiment classifier, tokenized IMDB/Yelp arrays (ids .npy), mixed precision,
# gradient accumulation over --accum micro-batches, Horovod fp16 allreduce.
# mpirun -np 4 -bind-to none python 05_tape_textcnn_accum_amp.py --accum 4
import argparse
import os
import time

import numpy as np
import tensorflow as tf
import horovod.tensorflow as hvd
from tensorflow.keras import mixed_precision

p = argparse.ArgumentParser()
p.add_argument("--train", default="data/yelp_train_ids.npy")
p.add_argument("--labels", default="data/yelp_train_y.npy")
p.add_argument("--vocab", type=int, default=50000)
p.add_argument("--maxlen", type=int, default=400)
p.add_argument("--micro-batch", type=int, default=32)
p.add_argument("--accum", type=int, default=4)
p.add_argument("--lr", type=float, default=5e-4)
p.add_argument("--epochs", type=int, default=5)
p.add_argument("--ckpt", default="ckpt_textcnn")
p.add_argument("--logdir", default="tb_textcnn")
args = p.parse_args()

hvd.init()
gpus = tf.config.list_physical_devices("GPU")
for g in gpus:
    tf.config.experimental.set_memory_growth(g, True)
if gpus:
    tf.config.set_visible_devices(gpus[hvd.local_rank()], "GPU")

mixed_precision.set_global_policy("mixed_float16")

ids = np.load(args.train, mmap_mode="r")[:, :args.maxlen]
ys = np.load(args.labels).astype("int32")
ds = tf.data.Dataset.from_tensor_slices((ids, ys))
ds = ds.shard(hvd.size(), hvd.rank()).shuffle(50000).batch(args.micro_batch, drop_remainder=True)
ds = ds.prefetch(tf.data.AUTOTUNE)


def textcnn(vocab, maxlen, n_classes=2):
    inp = tf.keras.Input((maxlen,), dtype="int32")
    emb = tf.keras.layers.Embedding(vocab, 256)(inp)
    pools = []
    for k in (3, 4, 5):
        c = tf.keras.layers.Conv1D(128, k, activation="relu")(emb)
        pools.append(tf.keras.layers.GlobalMaxPooling1D()(c))
    x = tf.keras.layers.Concatenate()(pools)
    x = tf.keras.layers.Dropout(0.5)(x)
    out = tf.keras.layers.Dense(n_classes, dtype="float32")(x)
    return tf.keras.Model(inp, out)


model = textcnn(args.vocab, args.maxlen)
opt = mixed_precision.LossScaleOptimizer(tf.keras.optimizers.Adam(args.lr * hvd.size()))
loss_fn = tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True)

# functional model: variables exist already, sync them now
hvd.broadcast_variables(model.variables, root_rank=0)

accum = [tf.Variable(tf.zeros_like(v), trainable=False) for v in model.trainable_variables]


@tf.function
def micro_step(x, y):
    with tf.GradientTape() as tape:
        logits = model(x, training=True)
        loss = loss_fn(y, logits)
        scaled = opt.get_scaled_loss(loss)
    grads = opt.get_unscaled_gradients(tape.gradient(scaled, model.trainable_variables))
    for a, g in zip(accum, grads):
        a.assign_add(g)
    return loss


@tf.function
def apply_accumulated():
    # add up everybody's accumulated gradients, then average over the micro-batches
    summed = [hvd.allreduce(a, op=hvd.Sum, compression=hvd.Compression.fp16) for a in accum]
    grads = [g / args.accum for g in summed]
    opt.apply_gradients(zip(grads, model.trainable_variables))
    for a in accum:
        a.assign(tf.zeros_like(a))


ckpt = tf.train.Checkpoint(model=model, optimizer=opt)
manager = tf.train.CheckpointManager(ckpt, args.ckpt, max_to_keep=3)
writer = tf.summary.create_file_writer(args.logdir) if hvd.rank() == 0 else None

opt_step = 0
for epoch in range(args.epochs):
    t0 = time.time()
    run_loss, nb = 0.0, 0
    for i, (x, y) in enumerate(ds):
        run_loss += float(micro_step(x, y))
        nb += 1
        if (i + 1) % args.accum == 0:
            apply_accumulated()
            opt_step += 1
            if opt_step % 50 == 0:
                avg = hvd.allreduce(tf.constant(run_loss / nb), name="loss50")
                if writer is not None:
                    with writer.as_default():
                        tf.summary.scalar("train/loss", avg, step=opt_step)
                        tf.summary.scalar("train/loss_scale", opt.loss_scale, step=opt_step)
                    print(f"[{epoch}] step {opt_step} loss {float(avg):.4f}")
                run_loss, nb = 0.0, 0

    manager.save(checkpoint_number=epoch)
    if hvd.rank() == 0:
        print(f"epoch {epoch} done in {time.time() - t0:.0f}s")
