"""Pretrain a small encoder on a weighted mixture of three telemetry sources.

Each source is a directory of .tfrecord.gz files; the mixture weights come from --mix.
Training loop is a plain GradientTape loop (no model.fit) so we can log per-source stats.
"""
import argparse
import glob
import json
import os
import time

import tensorflow as tf
import keras
import horovod.tensorflow as hvd

SOURCES = ("fleet", "lab", "synthetic")


def get_args():
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--root", default="/datasets/telemetry")
    p.add_argument("--mix", default='{"fleet": 0.6, "lab": 0.3, "synthetic": 0.1}')
    p.add_argument("--batch-size", type=int, default=512)
    p.add_argument("--lr", type=float, default=2e-4)
    p.add_argument("--train-steps", type=int, default=20000)
    p.add_argument("--eval-every", type=int, default=1000)
    p.add_argument("--shuffle-buf", type=int, default=50000)
    p.add_argument("--ckpt-dir", default="ckpt")
    return p.parse_args()


def parse(record):
    feats = tf.io.parse_single_example(record, {
        "x": tf.io.FixedLenFeature([64, 16], tf.float32),
        "y": tf.io.FixedLenFeature([64, 16], tf.float32),
    })
    return feats["x"], feats["y"]


def source_dataset(files, shuffle_buffer, seed):
    files = files[hvd.local_rank()::hvd.local_size()]
    ds = tf.data.Dataset.from_tensor_slices(files).shuffle(len(files), seed=seed).repeat()
    ds = ds.interleave(lambda f: tf.data.TFRecordDataset(f, compression_type="GZIP"),
                       cycle_length=2, num_parallel_calls=tf.data.AUTOTUNE)
    return ds.map(parse, num_parallel_calls=tf.data.AUTOTUNE).shuffle(shuffle_buffer, seed=seed)


def heldout_dataset(root, batch):
    files = sorted(glob.glob(os.path.join(root, "heldout", "*.tfrecord.gz")))
    ds = tf.data.TFRecordDataset(files, compression_type="GZIP").map(parse)
    return ds.batch(batch)


def make_encoder():
    inp = keras.Input((64, 16))
    x = keras.layers.Conv1D(64, 3, padding="same", activation="gelu")(inp)
    x = keras.layers.LayerNormalization()(x)
    x = keras.layers.Conv1D(64, 3, padding="same", activation="gelu")(x)
    return keras.Model(inp, keras.layers.Dense(16)(x))


def main():
    args = get_args()
    hvd.init()
    gpus = tf.config.list_physical_devices("GPU")
    for g in gpus:
        tf.config.experimental.set_memory_growth(g, True)
    if gpus:
        tf.config.set_visible_devices(gpus[hvd.local_rank()], "GPU")

    weights = json.loads(args.mix)
    per_source = []
    for name in SOURCES:
        files = sorted(glob.glob(os.path.join(args.root, name, "*.tfrecord.gz")))
        per_source.append(source_dataset(files, args.shuffle_buffer, seed=hvd.rank()))
    train = tf.data.Dataset.sample_from_datasets(
        per_source, weights=[weights[n] for n in SOURCES], seed=hvd.rank())
    train = train.batch(args.batch_size, drop_remainder=True).prefetch(tf.data.AUTOTUNE)
    heldout = heldout_dataset(args.root, 1024)

    model = make_encoder()
    schedule = keras.optimizers.schedules.CosineDecay(args.lr * hvd.size(), args.train_steps,
                                                      warmup_target=None)
    opt = keras.optimizers.Adam(schedule)
    mse = keras.losses.MeanSquaredError()

    @tf.function
    def step(x, y, first):
        with tf.GradientTape() as tape:
            loss = mse(y, model(x, training=True))
        tape = hvd.DistributedGradientTape(tape)
        grads = tape.gradient(loss, model.trainable_variables)
        opt.apply_gradients(zip(grads, model.trainable_variables))
        if first:
            hvd.broadcast_variables(model.variables, root_rank=0)
            hvd.broadcast_variables(opt.variables, root_rank=0)
        return loss

    @tf.function
    def eval_step(x, y):
        return tf.reduce_sum(tf.reduce_mean(tf.square(model(x, training=False) - y), axis=[1, 2]))

    t0 = time.time()
    for i, (x, y) in enumerate(train.take(args.train_steps)):
        loss = step(x, y, i == 0)
        if (i + 1) % args.eval_every == 0:
            if hvd.rank() == 0:
                total, n = 0.0, 0
                for hx, hy in heldout:
                    total += float(eval_step(hx, hy))
                    n += int(hx.shape[0])
                print(f"step {i + 1} train_mse {float(loss):.5f} heldout_mse {total / max(n, 1):.5f} "
                      f"({time.time() - t0:.0f}s)", flush=True)
                os.makedirs(args.ckpt_dir, exist_ok=True)
                model.save_weights(os.path.join(args.ckpt_dir, f"encoder_{i + 1}.weights.h5"))


if __name__ == "__main__":
    main()
