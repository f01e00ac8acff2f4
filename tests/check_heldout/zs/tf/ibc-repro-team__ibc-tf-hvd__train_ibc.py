# Implicit behavioural cloning (energy-based policy, InfoNCE over sampled counter-examples)
# reproduction on the particle task, data parallel with Horovod.
#
#   mpirun -np 4 python train_ibc.py --dataset particle_2d.npz --num-counter 256
import argparse
import os
import time

import numpy as np
import tensorflow as tf
import keras
import horovod.tensorflow as hvd


def get_flags():
    f = argparse.ArgumentParser()
    f.add_argument("--dataset", default="particle_2d.npz")
    f.add_argument("--batch", type=int, default=512)
    f.add_argument("--lr", type=float, default=5e-4)
    f.add_argument("--train-steps", type=int, default=100_000)
    f.add_argument("--eval-interval", type=int, default=5000)
    f.add_argument("--eval-episodes", type=int, default=100)
    f.add_argument("--num-counter", type=int, default=256)
    f.add_argument("--ckpt", default="/tmp/ibc_particle")
    return f.parse_args()


FLAGS = get_flags()

hvd.init()
for g in tf.config.experimental.list_physical_devices("GPU"):
    tf.config.experimental.set_memory_growth(g, True)
_gpus = tf.config.experimental.list_physical_devices("GPU")
if _gpus:
    tf.config.experimental.set_visible_devices(_gpus[hvd.local_rank()], "GPU")


def load(path):
    if not os.path.exists(path):
        rng = np.random.default_rng(0)
        obs = rng.uniform(-1, 1, (50000, 4)).astype("float32")
        act = np.clip(obs[:, 2:] - obs[:, :2], -1, 1).astype("float32")
        return obs, act
    z = np.load(path)
    return z["observations"].astype("float32"), z["actions"].astype("float32")


obs, act = load(FLAGS.dataset)
act_min, act_max = act.min(0) - 0.05, act.max(0) + 0.05
ds = (tf.data.Dataset.from_tensor_slices((obs, act))
      .shard(num_shards=hvd.size(), index=hvd.rank())
      .shuffle(20000).repeat().batch(FLAGS.batch, drop_remainder=True).prefetch(4))


class EnergyModel(keras.Model):
    def __init__(self, width=256, depth=4):
        super().__init__()
        self.body = [keras.layers.Dense(width, activation="relu") for _ in range(depth)]
        self.out = keras.layers.Dense(1)

    def call(self, obs, actions):
        # obs: [B, O], actions: [B, N, A] -> energies [B, N]
        n = tf.shape(actions)[1]
        x = tf.concat([tf.repeat(obs[:, None], n, axis=1), actions], -1)
        for layer in self.body:
            x = layer(x)
        return tf.squeeze(self.out(x), -1)


ebm = EnergyModel()
optimizer = keras.optimizers.Adam(learning_rate=FLAGS.lr * hvd.size())


@tf.function
def train_step(o, a, first):
    b = tf.shape(o)[0]
    negs = tf.random.uniform((b, FLAGS.num_counter, act.shape[1]), act_min, act_max)
    cands = tf.concat([a[:, None], negs], axis=1)
    with tf.GradientTape() as tape:
        logits = -ebm(o, cands)
        loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(tf.zeros(b, tf.int32), logits))
    tape = hvd.DistributedGradientTape(tape)
    grads = tape.gradient(loss, ebm.trainable_variables)
    optimizer.apply_gradients(zip(grads, ebm.trainable_variables))
    if first:
        hvd.broadcast_variables(ebm.variables, root_rank=0)
        hvd.broadcast_variables(optimizer.variables, root_rank=0)
    return loss


@tf.function
def infer(o, n_samples=1024, iters=3):
    """Derivative-free optimisation: sample, resample by energy, shrink noise."""
    cands = tf.random.uniform((1, n_samples, act.shape[1]), act_min, act_max)
    sigma = 0.33
    for _ in range(iters):
        probs = tf.nn.softmax(-ebm(o, cands))
        idx = tf.random.categorical(tf.math.log(probs), n_samples)
        cands = tf.gather(cands, idx, axis=1, batch_dims=1)
        cands = tf.clip_by_value(cands + tf.random.normal(tf.shape(cands)) * sigma, act_min, act_max)
        sigma *= 0.5
    best = tf.argmin(ebm(o, cands), axis=1)
    return tf.gather(cands, best, axis=1, batch_dims=1)


def particle_episode(seed, horizon=50):
    rng = np.random.default_rng(seed)
    pos, goal = rng.uniform(-1, 1, 2), rng.uniform(-1, 1, 2)
    for _ in range(horizon):
        a = infer(tf.constant(np.concatenate([pos, goal])[None], tf.float32)).numpy()[0]
        pos = np.clip(pos + 0.2 * a, -1, 1)
        if np.linalg.norm(pos - goal) < 0.05:
            return 1.0
    return 0.0


ckpt = tf.train.Checkpoint(model=ebm)
t0 = time.time()
for step, (o, a) in enumerate(ds.take(FLAGS.train_steps)):
    loss = train_step(o, a, step == 0)
    if (step + 1) % FLAGS.eval_interval == 0:
        # each worker evaluates its share of the episodes
        seeds = range(hvd.rank(), FLAGS.eval_episodes, hvd.size())
        success = np.mean([particle_episode(s) for s in seeds])
        if hvd.rank() == 0:
            print(f"step {step + 1} loss {float(loss):.4f} success {success:.3f} "
                  f"({time.time() - t0:.0f}s)", flush=True)
        if hvd.rank == 0:
            ckpt.write(os.path.join(FLAGS.ckpt, f"ebm-{step + 1}"))
