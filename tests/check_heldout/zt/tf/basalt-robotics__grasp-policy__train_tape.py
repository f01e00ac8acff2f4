# Behaviour-cloning trainer for the grasp policy (TF2, custom loop).
# Shards are listed in a text file produced by the episode exporter.
import argparse
import functools
import json
import os
import time

import numpy as np
import tensorflow as tf
import keras
import horovod.tensorflow as hvd


def timing(fn):
    @functools.wraps(fn)
    def wrapper(*a, **kw):
        start = time.time()
        out = fn(*a, **kw)
        wrapper.elapsed = time.time() - start
        return out
    wrapper.elapsed = 0.0
    return wrapper


def get_config():
    p = argparse.ArgumentParser()
    p.add_argument("--shard-list", default="episodes/shards.txt")
    p.add_argument("--obs-dim", type=int, default=48)
    p.add_argument("--act-dim", type=int, default=7)
    p.add_argument("--batch-size", type=int, default=256)
    p.add_argument("--lr", type=float, default=3e-4)
    p.add_argument("--epochs", type=int, default=50)
    p.add_argument("--steps-per-epoch", type=int, default=400)
    p.add_argument("--out", default="runs/grasp_bc")
    return p.parse_args()


def episode_dataset(shard_list, batch_size):
    with open(shard_list) as f:
        shards = sorted(l.strip() for l in f if l.strip())
    shards = shards[hvd.rank()::hvd.size()]
    obs, act = [], []
    for path in shards:
        ep = np.load(path)
        obs.append(ep["obs"])
        act.append(ep["act"])
    ds = tf.data.Dataset.from_tensor_slices((np.concatenate(obs).astype("float32"),
                                             np.concatenate(act).astype("float32")))
    return ds.shuffle(100_000).repeat().batch(batch_size, drop_remainder=True).prefetch(4)


def build_policy(obs_dim, act_dim):
    return keras.Sequential([
        keras.Input((obs_dim,)),
        keras.layers.Dense(512, activation="relu"),
        keras.layers.LayerNormalization(),
        keras.layers.Dense(512, activation="relu"),
        keras.layers.Dense(act_dim, activation="tanh"),
    ])


def main():
    cfg = get_config()
    hvd.init()
    gpus = tf.config.experimental.list_physical_devices("GPU")
    for gpu in gpus:
        tf.config.experimental.set_memory_growth(gpu, True)
    if gpus:
        tf.config.experimental.set_visible_devices(gpus[hvd.local_rank()], "GPU")

    data = iter(episode_dataset(cfg.shard_list, cfg.batch_size))
    policy = build_policy(cfg.obs_dim, cfg.act_dim)
    optimizer = keras.optimizers.Adam(learning_rate=cfg.lr * hvd.size(), clipnorm=1.0)
    hvd.broadcast_global_variables(0)

    @tf.function
    def train_step(obs, act):
        with tf.GradientTape() as tape:
            pred = policy(obs, training=True)
            loss = tf.reduce_mean(tf.square(pred - act))
        grads = tape.gradient(loss, policy.trainable_variables)
        optimizer.apply_gradients(zip(grads, policy.trainable_variables))
        return loss

    @timing
    def run_epoch():
        total = tf.constant(0.0)
        for _ in range(cfg.steps_per_epoch):
            total += train_step(*next(data))
        return total / cfg.steps_per_epoch

    ckpt = tf.train.Checkpoint(policy=policy, optimizer=optimizer)
    for epoch in range(cfg.epochs):
        mean_loss = hvd.allreduce(run_epoch(), name="epoch_loss")
        if hvd.rank() == 0:
            print(json.dumps({"epoch": epoch, "bc_loss": float(mean_loss), "secs": round(run_epoch.elapsed, 1)}))
            ckpt.write(os.path.join(cfg.out, f"policy-{epoch:03d}"))


if __name__ == "__main__":
    main()
