"""Behaviour cloning for a 7-DoF reach-and-grasp task.

Custom GradientTape loop + horovod.tensorflow. The global batch is fixed (so results
do not depend on how many GPUs we get on the cluster) and split over workers.
"""
import argparse
import os
import time

import numpy as np
import tensorflow as tf
import keras
import horovod.tensorflow as hvd

parser = argparse.ArgumentParser()
parser.add_argument("--demos", default="data/grasp_demos.npz")
parser.add_argument("--fake", action="store_true")
parser.add_argument("--global-batch", type=int, default=1024)
parser.add_argument("--lr", type=float, default=1e-3, help="tuned for the global batch")
parser.add_argument("--epochs", type=int, default=60)
parser.add_argument("--frame-stack", type=int, default=3)
parser.add_argument("--eval-episodes", type=int, default=100)
parser.add_argument("--logdir", default="logs/bc")
args = parser.parse_args()

hvd.init()
gpus = tf.config.experimental.list_physical_devices("GPU")
for gpu in gpus:
    tf.config.experimental.set_memory_growth(gpu, True)
if gpus:
    tf.config.experimental.set_visible_devices(gpus[hvd.local_rank()], "GPU")

assert args.global_batch % hvd.size() == 0, "global batch must divide evenly"
local_batch = args.global_batch // hvd.size()

# ---- data -------------------------------------------------------------------------
if args.fake:
    rs = np.random.RandomState(0)
    obs = rs.randn(20000, 24).astype("float32")
    act = np.tanh(obs[:, :7] + 0.1 * rs.randn(20000, 7)).astype("float32")
    ep_id = np.repeat(np.arange(200), 100)
else:
    z = np.load(args.demos)
    obs, act, ep_id = z["obs"].astype("float32"), z["act"].astype("float32"), z["episode"]

# stack the previous frames of the same episode
stacked = [obs]
for k in range(1, args.frame_stack):
    prev = np.roll(obs, k, axis=0)
    same = np.roll(ep_id, k) == ep_id
    stacked.append(np.where(same[:, None], prev, obs))
obs_s = np.concatenate(stacked[::-1], axis=1)
a_lo, a_hi = act.min(0), act.max(0)
act_n = 2 * (act - a_lo) / (a_hi - a_lo + 1e-6) - 1

val_mask = ep_id % 10 == 0
x_tr, y_tr = obs_s[~val_mask], act_n[~val_mask]
x_va, y_va = obs_s[val_mask], act_n[val_mask]
steps_per_epoch = len(x_tr) // args.global_batch
val_steps = len(x_va) // args.global_batch

train_ds = (tf.data.Dataset.from_tensor_slices((x_tr, y_tr))
            .shard(hvd.size(), hvd.rank())
            .shuffle(len(x_tr) // hvd.size() + 1, reshuffle_each_iteration=True)
            .repeat()
            .batch(local_batch, drop_remainder=True)
            .prefetch(tf.data.AUTOTUNE))
val_ds = (tf.data.Dataset.from_tensor_slices((x_va, y_va))
          .shard(hvd.size(), hvd.rank())
          .batch(local_batch, drop_remainder=True))

# ---- model ------------------------------------------------------------------------
policy = keras.Sequential([
    keras.Input((obs_s.shape[1],)),
    keras.layers.Dense(512, activation="relu"),
    keras.layers.Dropout(0.1),
    keras.layers.Dense(512, activation="relu"),
    keras.layers.Dense(256, activation="relu"),
    keras.layers.Dense(act.shape[1], activation="tanh"),
])
schedule = keras.optimizers.schedules.CosineDecay(args.lr, args.epochs * steps_per_epoch, warmup_target=None)
opt = keras.optimizers.Adam(learning_rate=schedule, use_ema=True, ema_momentum=0.999)
mse = keras.losses.MeanSquaredError()


@tf.function
def train_step(x, y, first_batch):
    with tf.GradientTape() as tape:
        loss = mse(y, policy(x, training=True))
    tape = hvd.DistributedGradientTape(tape)
    grads = tape.gradient(loss, policy.trainable_variables)
    opt.apply_gradients(zip(grads, policy.trainable_variables))
    if first_batch:
        hvd.broadcast_variables(policy.variables, root_rank=0)
        hvd.broadcast_variables(opt.variables, root_rank=0)
    return loss


@tf.function
def val_step(x, y):
    return mse(y, policy(x, training=False))


class ReachGraspStub:
    def __init__(self, seed):
        self.rs = np.random.RandomState(seed)

    def run(self, steps=80):
        frames = [self.rs.randn(24).astype("float32")] * args.frame_stack
        goal = self.rs.uniform(-1, 1, 7)
        for _ in range(steps):
            a = policy(np.concatenate(frames[-args.frame_stack:])[None], training=False).numpy()[0]
            a = (a + 1) / 2 * (a_hi - a_lo) + a_lo
            frames.append(np.concatenate([frames[-1][:7] + 0.1 * (a - frames[-1][:7]), frames[-1][7:]]))
        return float(np.abs(frames[-1][:7] - goal).max() < 0.5)


# ---- loop -------------------------------------------------------------------------
it = iter(train_ds)
for epoch in range(args.epochs):
    t0 = time.time()
    tr_loss = 0.0
    for step in range(steps_per_epoch):
        x, y = next(it)
        tr_loss += float(train_step(x, y, epoch == 0 and step == 0))
    va_loss = sum(float(val_step(x, y)) for x, y in val_ds.take(val_steps)) / max(1, val_steps)
    tr_loss = float(hvd.allreduce(tf.constant(tr_loss / steps_per_epoch)))
    va_loss = float(hvd.allreduce(tf.constant(va_loss)))

    if hvd.rank() == 0:
        msg = f"epoch {epoch:3d} train {tr_loss:.4f} val {va_loss:.4f} ({time.time() - t0:.1f}s)"
        if epoch % 10 == 9 or epoch == args.epochs - 1:
            backup = [v.numpy() for v in policy.trainable_variables]
            opt.finalize_variable_values(policy.trainable_variables)  # swap in EMA weights
            sr = np.mean([ReachGraspStub(5000 + i).run() for i in range(args.eval_episodes)])
            os.makedirs(args.logdir, exist_ok=True)
            policy.save_weights(os.path.join(args.logdir, f"bc_ema_epoch{epoch + 1}.weights.h5"))
            for v, b in zip(policy.trainable_variables, backup):
                v.assign(b)
            msg += f" success(EMA) {sr:.2f}"
        print(msg, flush=True)
