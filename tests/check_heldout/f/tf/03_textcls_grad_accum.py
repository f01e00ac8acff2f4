"""Sentiment classifier (Transformer encoder) on sharded TFRecords with
gradient accumulation. Gradients are accumulated locally and averaged across
workers once per optimizer step with an explicit allreduce (fp16 on the wire).

    srun --ntasks-per-node=4 python 03_textcls_grad_accum.py --data /scratch/imdb_tfrec
"""
import argparse
import glob
import math
import os

import tensorflow as tf
import horovod.tensorflow as hvd


def get_args():
    p = argparse.ArgumentParser()
    p.add_argument("--data", required=True)
    p.add_argument("--vocab", type=int, default=30000)
    p.add_argument("--maxlen", type=int, default=256)
    p.add_argument("--micro-batch", type=int, default=16)
    p.add_argument("--accum", type=int, default=4)
    p.add_argument("--lr", type=float, default=3e-4)
    p.add_argument("--epochs", type=int, default=5)
    p.add_argument("--train-records", type=int, default=25000)
    p.add_argument("--ckpt", default="ckpt_textcls")
    return p.parse_args()


class WarmupCosine(tf.keras.optimizers.schedules.LearningRateSchedule):
    def __init__(self, peak_lr, warmup, total):
        self.peak_lr = peak_lr
        self.warmup = warmup
        self.total = total

    def __call__(self, step):
        step = tf.cast(step, tf.float32)
        warm = self.peak_lr * step / self.warmup
        prog = (step - self.warmup) / max(1.0, self.total - self.warmup)
        cos = 0.5 * self.peak_lr * (1.0 + tf.cos(math.pi * tf.minimum(prog, 1.0)))
        return tf.where(step < self.warmup, warm, cos)


def parse(example, maxlen):
    feats = tf.io.parse_single_example(example, {
        "ids": tf.io.VarLenFeature(tf.int64),
        "label": tf.io.FixedLenFeature([], tf.int64)})
    ids = tf.sparse.to_dense(feats["ids"])[:maxlen]
    ids = tf.pad(ids, [[0, maxlen - tf.shape(ids)[0]]])
    return ids, feats["label"]


def dataset(pattern, args, training):
    files = sorted(glob.glob(pattern))
    ds = tf.data.Dataset.from_tensor_slices(files)
    ds = ds.shard(hvd.size(), hvd.rank())          # each worker reads its own files
    ds = ds.interleave(tf.data.TFRecordDataset, cycle_length=4)
    ds = ds.map(lambda e: parse(e, args.maxlen), num_parallel_calls=tf.data.AUTOTUNE)
    if training:
        ds = ds.shuffle(5000).repeat()
    return ds.batch(args.micro_batch).prefetch(tf.data.AUTOTUNE)


def build_model(args):
    inp = tf.keras.Input((args.maxlen,), dtype=tf.int64)
    x = tf.keras.layers.Embedding(args.vocab, 128)(inp)
    for _ in range(2):
        a = tf.keras.layers.MultiHeadAttention(4, 32)(x, x)
        x = tf.keras.layers.LayerNormalization()(x + a)
        f = tf.keras.layers.Dense(256, activation="gelu")(x)
        x = tf.keras.layers.LayerNormalization()(x + tf.keras.layers.Dense(128)(f))
    x = tf.keras.layers.GlobalAveragePooling1D()(x)
    return tf.keras.Model(inp, tf.keras.layers.Dense(2)(x))


def main():
    args = get_args()
    hvd.init()
    gpus = tf.config.list_physical_devices("GPU")
    if gpus:
        tf.config.experimental.set_memory_growth(gpus[hvd.local_rank()], True)
        tf.config.set_visible_devices(gpus[hvd.local_rank()], "GPU")

    global_batch = args.micro_batch * args.accum * hvd.size()
    opt_steps = args.train_records // global_batch
    micro_steps = opt_steps * args.accum

    model = build_model(args)          # functional: variables exist already
    hvd.broadcast_variables(model.variables, root_rank=0)

    sched = WarmupCosine(args.lr * hvd.size(), warmup=200, total=opt_steps * args.epochs)
    opt = tf.keras.optimizers.Adam(sched)
    loss_fn = tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True)

    accum = [tf.Variable(tf.zeros_like(v), trainable=False) for v in model.trainable_variables]

    @tf.function
    def micro_step(x, y):
        with tf.GradientTape() as tape:
            loss = loss_fn(y, model(x, training=True))
        grads = tape.gradient(loss, model.trainable_variables)
        for a, g in zip(accum, grads):
            a.assign_add(g / args.accum)
        return loss

    @tf.function
    def apply_step():
        avg = [hvd.allreduce(a, compression=hvd.Compression.fp16) for a in accum]
        opt.apply_gradients(zip(avg, model.trainable_variables))
        for a in accum:
            a.assign(tf.zeros_like(a))

    ckpt = tf.train.Checkpoint(model=model, opt=opt)
    manager = tf.train.CheckpointManager(ckpt, args.ckpt, max_to_keep=2)

    train_ds = iter(dataset(os.path.join(args.data, "train-*.tfrecord"), args, True))
    for epoch in range(args.epochs):
        total = 0.0
        for i in range(micro_steps):
            x, y = next(train_ds)
            total += float(micro_step(x, y))
            if (i + 1) % args.accum == 0:
                apply_step()
        mean_loss = hvd.allreduce(tf.constant(total / micro_steps), name="loss")

        correct, seen = 0.0, 0.0
        for x, y in dataset(os.path.join(args.data, "test-*.tfrecord"), args, False):
            pred = tf.argmax(model(x, training=False), -1)
            correct += float(tf.reduce_sum(tf.cast(pred == y, tf.float32)))
            seen += float(tf.shape(y)[0])
        stats = hvd.allreduce(tf.constant([correct, seen]), op=hvd.Sum, name="acc")
        if hvd.rank() == 0:
            print(f"epoch {epoch}: loss={float(mean_loss):.4f} "
                  f"test_acc={float(stats[0] / stats[1]):.4f}", flush=True)
            manager.save()


if __name__ == "__main__":
    main()
