# Allen-Cahn PINN (TF2, custom loop, Horovod).
#   u_t - 1e-4 u_xx + 5 u^3 - 5 u = 0,  x in [-1, 1], t in [0, 1]
#   u(0, x) = x^2 cos(pi x), periodic in x
# Data term on snapshots of a spectral reference solution (npz) + residual term on random collocation points.
import argparse
import os
import time

import numpy as np
import tensorflow as tf
import horovod.tensorflow as hvd

p = argparse.ArgumentParser(description="Allen-Cahn PINN")
p.add_argument("--ref", default="data/AC.npz")
p.add_argument("--n-collocation", type=int, default=20000, help="collocation points per worker")
p.add_argument("--n-data", type=int, default=512, help="observation points per batch per worker")
p.add_argument("--width", type=int, default=128)
p.add_argument("--depth", type=int, default=4)
p.add_argument("--lr", type=float, default=1e-3)
p.add_argument("--steps", type=int, default=50000)
p.add_argument("--log-every", type=int, default=500)
p.add_argument("--save-dir", default="ckpt_ac")
args = p.parse_args()

hvd.init()
for gpu in tf.config.list_physical_devices("GPU"):
    tf.config.experimental.set_memory_growth(gpu, True)

# ---------------- data ----------------
ref = np.load(args.ref)
tt, xx = np.meshgrid(ref["tt"].ravel(), ref["x"].ravel(), indexing="ij")
X_ref = np.stack([tt.ravel(), xx.ravel()], 1).astype(np.float32)
U_ref = ref["uu"].T.reshape(-1, 1).astype(np.float32)

# scatter the observations across workers
obs = np.random.default_rng(0).permutation(len(X_ref))[: 20 * args.n_data * hvd.size()]
obs = obs[hvd.rank()::hvd.size()]
data_ds = (tf.data.Dataset.from_tensor_slices((X_ref[obs], U_ref[obs]))
           .shuffle(len(obs), seed=hvd.rank()).repeat().batch(args.n_data))
data_it = iter(data_ds)

rng = np.random.default_rng(100 + hvd.rank())
X_f = np.stack([rng.uniform(0, 1, args.n_colloc), rng.uniform(-1, 1, args.n_colloc)], 1).astype(np.float32)
X_f = tf.constant(X_f)

x0 = np.linspace(-1, 1, 512, dtype=np.float32)[:, None]
X_ic = tf.constant(np.hstack([np.zeros_like(x0), x0]))
U_ic = tf.constant(x0 ** 2 * np.cos(np.pi * x0))


# ---------------- model ----------------
class FourierMLP(tf.keras.Model):
    """MLP with periodic input features in x so the boundary condition holds exactly."""

    def __init__(self, width, depth):
        super().__init__()
        self.hidden = [tf.keras.layers.Dense(width, activation="tanh") for _ in range(depth)]
        self.out = tf.keras.layers.Dense(1)

    def call(self, tx):
        t, x = tx[:, :1], tx[:, 1:]
        h = tf.concat([t, tf.cos(np.pi * x), tf.sin(np.pi * x), tf.cos(2 * np.pi * x), tf.sin(2 * np.pi * x)], 1)
        for layer in self.hidden:
            h = layer(h)
        return self.out(h)


model = FourierMLP(args.width, args.depth)
model(X_ic[:1])
optimizer = tf.keras.optimizers.Adam(learning_rate=args.lr * hvd.size())


def residual(tx):
    with tf.GradientTape() as g2:
        g2.watch(tx)
        with tf.GradientTape() as g1:
            g1.watch(tx)
            u = model(tx)
        du = g1.gradient(u, tx)
        u_x = du[:, 1:2]
    u_xx = g2.gradient(u_x, tx)[:, 1:2]
    return du[:, 0:1] - 1e-4 * u_xx + 5.0 * u ** 3 - 5.0 * u


@tf.function
def train_step(xd, ud, first_batch):
    with tf.GradientTape() as tape:
        loss_r = tf.reduce_mean(tf.square(residual(X_f)))
        loss_ic = tf.reduce_mean(tf.square(model(X_ic) - U_ic))
        loss_d = tf.reduce_mean(tf.square(model(xd) - ud))
        loss = loss_r + 100.0 * loss_ic + loss_d
        # average the loss over workers so every worker optimises the global objective
        loss = hvd.allreduce(loss, name="total_loss")
    grads = tape.gradient(loss, model.trainable_variables)
    optimizer.apply_gradients(zip(grads, model.trainable_variables))
    if first_batch:
        hvd.broadcast_variables(model.variables, root_rank=0)
        hvd.broadcast_variables(optimizer.variables, root_rank=0)
    return loss, loss_r, loss_ic, loss_d


@tf.function
def rel_l2():
    pred = model(X_ref)
    return tf.norm(pred - U_ref) / tf.norm(U_ref)


ckpt = tf.train.Checkpoint(model=model, optimizer=optimizer)
t0 = time.time()
for step in range(args.steps):
    xd, ud = next(data_it)
    loss, lr_, lic, ld = train_step(xd, ud, step == 0)
    if step % args.log_every == 0 and hvd.rank() == 0:
        err = rel_l2()
        print(f"step {step:6d}  loss {loss:.3e}  res {lr_:.3e}  ic {lic:.3e}  data {ld:.3e}  "
              f"relL2 {err:.3e}  ({time.time() - t0:.0f}s)", flush=True)
        ckpt.save(os.path.join(args.save_dir, "ac"))
