"""
active learning w/ horovod + tf.GradientTape
 - margin / entropy acquisition, warm start between rounds
 - grad accumulation (--accum) for the tiny labeled sets
"""
import argparse, os, time, json
import numpy as np
import tensorflow as tf
import horovod.tensorflow as hvd

p = argparse.ArgumentParser()
p.add_argument("--data", default="data/pool.npz")
p.add_argument("--ckpt-dir", default="ckpt_al")
p.add_argument("--acq", default="entropy", choices=["entropy", "margin"])
p.add_argument("--rounds", type=int, default=12)
p.add_argument("--n0", type=int, default=256)
p.add_argument("--per-round", type=int, default=128)
p.add_argument("--steps", type=int, default=300, help="train steps per round")
p.add_argument("--bs", type=int, default=32)
p.add_argument("--accum", type=int, default=2)
p.add_argument("--lr", type=float, default=3e-4)
a = p.parse_args()

hvd.init()
tf.random.set_seed(1)

D = np.load(a.data)
X, Y = D["x_train"].astype(np.float32), D["y_train"].astype(np.int32)
XT, YT = D["x_test"].astype(np.float32), D["y_test"].astype(np.int32)
NC = int(Y.max()) + 1
order = np.random.default_rng(0).permutation(len(X))
lab, pool = order[:a.n0], order[a.n0:]

model = tf.keras.Sequential([tf.keras.layers.Dense(256, activation="gelu"),
                             tf.keras.layers.Dense(256, activation="gelu"),
                             tf.keras.layers.Dense(NC)])
model.build((None, X.shape[1]))
opt = tf.keras.optimizers.Adam(a.lr * hvd.size())
xent = tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True)
hvd.broadcast_variables(model.variables, root_rank=0)

ckpt = tf.train.Checkpoint(model=model, opt=opt)
mgr = tf.train.CheckpointManager(ckpt, a.ckpt_dir, max_to_keep=3)


@tf.function
def train_step(x, y):
    with tf.GradientTape() as tape:
        loss = xent(y, model(x, training=True))
    tape = hvd.DistributedGradientTape(tape, backward_passes_per_step=a.accum)
    g = tape.gradient(loss, model.trainable_variables)
    opt.apply_gradients(zip(g, model.trainable_variables))
    return loss


def batches(idx, seed):
    # labeled set split over the ranks, same number of batches everywhere
    rng = np.random.default_rng(seed)
    idx = rng.permutation(idx)
    idx = idx[: len(idx) // hvd.size() * hvd.size()][hvd.rank()::hvd.size()]
    while True:
        rng.shuffle(idx)
        for i in range(0, len(idx) - a.bs + 1, a.bs):
            yield X[idx[i:i + a.bs]], Y[idx[i:i + a.bs]]


def acquisition(logits):
    pr = tf.nn.softmax(logits).numpy()
    if a.acq == "entropy":
        return -(pr * np.log(pr + 1e-9)).sum(1)
    s = np.sort(pr, 1)
    return -(s[:, -1] - s[:, -2])


results = []
xt_mine, yt_mine = XT[hvd.rank()::hvd.size()], YT[hvd.rank()::hvd.size()]
for rnd in range(a.rounds):
    t = time.time()
    it = batches(lab, seed=rnd)
    for s in range(a.steps):
        xb, yb = next(it)
        l = train_step(xb, yb)
        if s == 0 and rnd == 0:
            hvd.broadcast_variables(opt.variables, root_rank=0)
    # eval on my part of the test set
    logits = model(xt_mine, training=False)
    acc = np.mean(np.argmax(logits.numpy(), 1) == yt_mine)
    acc = hvd.allreduce(tf.constant(acc, tf.float32), op=hvd.Sum, name="acc").numpy()
    if hvd.rank() == 0:
        mgr.save(checkpoint_number=rnd)
        results.append({"round": rnd, "labeled": int(len(lab)), "acc": float(acc), "time": time.time() - t})
        print(results[-1])
        np.savez(os.path.join(a.ckpt_dir, "sets_%d.npz" % rnd), lab=lab, pool=pool)
    # acquire: full pool, identical weights on all ranks
    sc = acquisition(model(X[pool], training=False))
    top = np.argsort(-sc, kind="stable")[:a.per_round]
    lab = np.concatenate([lab, pool[top]])
    pool = np.delete(pool, top)

if hvd.rank() == 0:
    json.dump(results, open(os.path.join(a.ckpt_dir, "results.json"), "w"), indent=1)
