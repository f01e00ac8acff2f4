import os
from types import SimpleNamespace

import numpy as np
import tensorflow as tf
import horovod.tensorflow as hvd

from .model import Classifier, WarmupLR
from .runtime import global_sum


def prepare_stage(cfg, ctx):
    d = np.load(cfg.data)
    x, y = d["x_train"].astype("float32"), d["y_train"].astype("int32")
    order = np.random.RandomState(cfg.seed).permutation(len(x))
    return SimpleNamespace(x=x, y=y, xt=d["x_test"].astype("float32"), yt=d["y_test"].astype("int32"),
                           labeled=order[:cfg.init_size], pool=order[cfg.init_size:],
                           n_cls=int(y.max()) + 1, model=None, table=[], round=0, workdir=cfg.workdir)


def _train_dataset(cfg, ctx, x, y, seed):
    n = len(x) // ctx.size * ctx.size
    ds = tf.data.Dataset.from_tensor_slices((x[:n], y[:n]))
    ds = ds.shuffle(n, seed=seed, reshuffle_each_iteration=False)
    ds = ds.shard(ctx.size, ctx.rank)
    return ds.batch(cfg.batch_size)


def train_stage(cfg, ctx, state):
    model = Classifier(state.n_cls)
    opt = tf.keras.optimizers.Adam(WarmupLR(cfg.base_lr * ctx.size, cfg.warmup_steps))
    loss_fn = tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True)

    @tf.function
    def step(xb, yb, first):
        with tf.GradientTape() as tape:
            loss = loss_fn(yb, model(xb, training=True))
        tape = hvd.DistributedGradientTape(tape)
        grads = tape.gradient(loss, model.trainable_variables)
        opt.apply_gradients(zip(grads, model.trainable_variables))
        if first:
            hvd.broadcast_variables(model.variables, root_rank=0)
            hvd.broadcast_variables(opt.variables, root_rank=0)
        return loss

    xl, yl = state.x[state.labeled], state.y[state.labeled]
    first = True
    for ep in range(cfg.epochs):
        for xb, yb in _train_dataset(cfg, ctx, xl, yl, seed=cfg.seed + 100 * state.round + ep):
            step(xb, yb, first)
            first = False
    state.model = model
    if ctx.is_chief:
        model.save_weights(os.path.join(cfg.workdir, "round_%02d.weights.h5" % state.round))


def report_stage(cfg, ctx, state):
    xt, yt = state.xt[ctx.rank::ctx.size], state.yt[ctx.rank::ctx.size]
    correct = 0
    for i in range(0, len(xt), 1024):
        pred = tf.argmax(state.model(xt[i:i + 1024]), axis=1, output_type=tf.int32).numpy()
        correct += int((pred == yt[i:i + 1024]).sum())
    tot = global_sum([correct, len(xt)], name="report_%d" % state.round)
    acc = float(tot[0] / tot[1])
    state.table.append({"round": state.round, "n_labeled": int(len(state.labeled)), "acc": acc})
    if ctx.is_chief:
        print("round %d: n_labeled=%d acc=%.4f" % (state.round, len(state.labeled), acc), flush=True)
        np.savez(os.path.join(cfg.workdir, "split_%02d.npz" % state.round),
                 labeled=state.labeled, pool=state.pool)


def select_stage(cfg, ctx, state):
    """greedy k-center over embeddings; each worker embeds a slice, allgather, same greedy everywhere"""
    def emb(idx):
        parts = [state.model(state.x[idx[i:i + 2048]], return_embedding=True)[1]
                 for i in range(0, len(idx), 2048)]
        return tf.concat(parts, 0) if parts else tf.zeros([0, 128])
    mine = state.pool[ctx.rank::ctx.size]
    pool_emb = hvd.allgather(emb(mine), name="pool_emb_%d" % state.round).numpy()
    pool_ids = hvd.allgather(tf.constant(mine, tf.int64), name="pool_ids_%d" % state.round).numpy()
    lab_emb = emb(state.labeled).numpy()

    dmin = np.full(len(pool_emb), np.inf)
    for i in range(0, len(lab_emb), 512):
        d = ((pool_emb[:, None, :] - lab_emb[None, i:i + 512, :]) ** 2).sum(-1)
        dmin = np.minimum(dmin, d.min(1))
    picked = []
    for _ in range(min(cfg.budget, len(pool_emb))):
        j = int(np.argmax(dmin))
        picked.append(j)
        dmin = np.minimum(dmin, ((pool_emb - pool_emb[j]) ** 2).sum(-1))
    new_ids = pool_ids[picked]
    state.labeled = np.concatenate([state.labeled, new_ids])
    state.pool = np.setdiff1d(state.pool, new_ids)
