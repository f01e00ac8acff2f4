"""
Photo-z with predictive uncertainty: a CNN on 5-band galaxy cutouts predicts a categorical
distribution over redshift bins. Stage 1 trains the whole network, stage 2 re-fits only the
output head with a Brier loss (better-calibrated PDFs). We report PIT-style calibration via
ECE over bins, and the mean predictive entropy on an OOD survey (different depth / seeing).

    mpirun -np 4 python train_tape.py --train sdss_train.npz --ood hsc_subset.npz
"""
import argparse
import os

import numpy as np
import tensorflow as tf
import keras
import horovod.tensorflow as hvd

p = argparse.ArgumentParser()
p.add_argument("--train", default="data/sdss_train.npz")
p.add_argument("--ood", default="data/hsc_subset.npz")
p.add_argument("--zmax", type=float, default=0.4)
p.add_argument("--nbins", type=int, default=180)
p.add_argument("--batch", type=int, default=64)
p.add_argument("--lr", type=float, default=2e-4)
p.add_argument("--epochs", type=int, default=20)
p.add_argument("--head-epochs", type=int, default=5)
p.add_argument("--out", default="models/photoz")
args = p.parse_args()

hvd.init()
for gpu in tf.config.experimental.list_physical_devices("GPU"):
    tf.config.experimental.set_memory_growth(gpu, True)

d = np.load(args.train)
x, z = d["images"].astype("float32"), d["z"].astype("float32")
zbin = np.clip((z / args.zmax * args.nbins).astype("int32"), 0, args.nbins - 1)
n_val = len(x) // 10
x_val, y_val = x[:n_val], zbin[:n_val]
x_tr, y_tr = x[n_val:], zbin[n_val:]
steps_per_epoch = len(x_tr) // (args.batch * hvd.size())

train_ds = (tf.data.Dataset.from_tensor_slices((x_tr, y_tr))
            .shuffle(len(x_tr))
            .shard(hvd.size(), hvd.rank())
            .repeat()
            .batch(args.batch, drop_remainder=True)
            .prefetch(tf.data.AUTOTUNE))


def make_model(n_bands, nbins):
    inp = keras.Input((64, 64, n_bands))
    h = inp
    for f in (32, 64, 128):
        h = keras.layers.Conv2D(f, 3, padding="same", activation="relu")(h)
        h = keras.layers.Conv2D(f, 3, padding="same", activation="relu")(h)
        h = keras.layers.AveragePooling2D(2)(h)
    h = keras.layers.GlobalAveragePooling2D(name="features")(h)
    h = keras.layers.Dense(256, activation="relu", name="head_hidden")(h)
    out = keras.layers.Dense(nbins, name="head_logits")(h)
    return keras.Model(inp, out)


model = make_model(x.shape[-1], args.nbins)
head_vars = model.get_layer("head_hidden").trainable_variables + model.get_layer("head_logits").trainable_variables
opt = keras.optimizers.Adam(learning_rate=args.lr * hvd.size())
head_opt = keras.optimizers.Adam(learning_rate=0.1 * args.lr * hvd.size())
ce = keras.losses.SparseCategoricalCrossentropy(from_logits=True)


@tf.function
def train_step(images, labels, first_batch):
    with tf.GradientTape() as tape:
        loss = ce(labels, model(images, training=True))
    tape = hvd.DistributedGradientTape(tape)
    grads = tape.gradient(loss, model.trainable_variables)
    opt.apply_gradients(zip(grads, model.trainable_variables))
    if first_batch:
        hvd.broadcast_variables(model.variables, root_rank=0)
        hvd.broadcast_variables(opt.variables, root_rank=0)
    return loss


@tf.function
def head_step(images, labels):
    onehot = tf.one_hot(labels, args.nbins)
    with tf.GradientTape() as tape:
        probs = tf.nn.softmax(model(images, training=True))
        loss = tf.reduce_mean(tf.reduce_sum((probs - onehot) ** 2, axis=-1))
    grads = tape.gradient(loss, head_vars)
    head_opt.apply_gradients(zip(grads, head_vars))
    return loss


def calibration(xs, ys, n_conf_bins=10):
    """ECE over the max-probability bin and mean entropy; sums reduced over workers."""
    xs, ys = xs[hvd.rank()::hvd.size()], ys[hvd.rank()::hvd.size()]
    probs = tf.nn.softmax(model.predict(xs, batch_size=256, verbose=0)).numpy()
    conf, pred = probs.max(-1), probs.argmax(-1)
    hit = (np.abs(pred - ys) <= 2).astype("float64")  # within +-2 bins counts as correct
    b = np.minimum((conf * n_conf_bins).astype(int), n_conf_bins - 1)
    stats = np.concatenate([np.bincount(b, minlength=n_conf_bins),
                            np.bincount(b, weights=conf, minlength=n_conf_bins),
                            np.bincount(b, weights=hit, minlength=n_conf_bins),
                            [-(probs * np.log(probs + 1e-12)).sum(), len(ys)]])
    stats = hvd.allreduce(tf.constant(stats, tf.float64), op=hvd.Sum, name="calib_stats").numpy()
    cnt, sc, sh = np.split(stats[:-2], 3)
    ece = np.abs(sh - sc).sum() / stats[-1]
    return ece, sh.sum() / stats[-1], stats[-2] / stats[-1]


it = iter(train_ds)
for epoch in range(args.epochs):
    for step in range(steps_per_epoch):
        xb, yb = next(it)
        loss = train_step(xb, yb, epoch == 0 and step == 0)
    ece, acc, ent = calibration(x_val, y_val)
    if hvd.rank() == 0:
        print(f"[stage 1] epoch {epoch}: loss {loss.numpy():.4f} val acc(+-2) {acc:.4f} ECE {ece:.4f} H {ent:.3f}")

# stage 2: trunk frozen, head re-fit with a proper scoring rule
for epoch in range(args.head_epochs):
    for step in range(steps_per_epoch):
        xb, yb = next(it)
        loss = head_step(xb, yb)
    ece, acc, ent = calibration(x_val, y_val)
    if hvd.rank() == 0:
        print(f"[stage 2] epoch {epoch}: brier {loss.numpy():.4f} val acc(+-2) {acc:.4f} ECE {ece:.4f} H {ent:.3f}")

o = np.load(args.ood)
ood_x = o["images"].astype("float32")
ood_y = np.clip((o["z"] / args.zmax * args.nbins).astype("int32"), 0, args.nbins - 1)
ece_ood, acc_ood, ent_ood = calibration(ood_x, ood_y)
if hvd.rank() == 0:
    print(f"OOD: acc(+-2) {acc_ood:.4f} ECE {ece_ood:.4f} mean entropy {ent_ood:.3f}")
    os.makedirs(args.out, exist_ok=True)
    model.save_weights(os.path.join(args.out, "photoz.weights.h5"))
