"""CTR model with a 4M-row embedding table; table checkpointed in row shards.

    horovodrun -np 8 python train.py [--config configs/base.json] [--steps N]
"""
import argparse
import time

import tensorflow as tf
import horovod.tensorflow as hvd

from embshard.config import Config
from embshard.input_pipeline import train_input, eval_input
from embshard.model import CTRModel
from embshard import sharded_ckpt
from embshard.eval_utils import auc_logloss


def pin_gpus():
    gpus = tf.config.list_physical_devices("GPU")
    try:
        for g in gpus:
            tf.config.experimental.set_memory_growth(g, True)
        if gpus:
            tf.config.set_visible_devices(gpus[hvd.local_rank()], "GPU")
    except RuntimeError as e:
        # visible devices must be set before GPUs have been initialized
        print(e)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--config", default=None)
    ap.add_argument("--steps", type=int, default=None)
    ap.add_argument("--out_dir", default=None)
    a = ap.parse_args()
    cfg = Config.load(a.config, train_steps=a.steps, out_dir=a.out_dir)

    hvd.init()
    model = CTRModel(cfg.vocab, cfg.dim, cfg.hidden)
    sparse_opt = tf.keras.optimizers.SGD(cfg.emb_lr * hvd.size())
    dense_opt = tf.keras.optimizers.Adam(cfg.lr * hvd.size())
    pin_gpus()

    train_ds = train_input(cfg, hvd.rank(), hvd.size())
    eval_ds = eval_input(cfg, hvd.rank(), hvd.size())

    @tf.function
    def step_fn(dense, cat, y, first):
        with tf.GradientTape() as tape:
            logits = model(dense, cat)
            loss = tf.reduce_mean(tf.nn.sigmoid_cross_entropy_with_logits(y, logits))
        dtape = hvd.DistributedGradientTape(tape, sparse_as_dense=False)
        grads = tape.gradient(loss, model.sparse_vars + model.dense_vars)
        n = len(model.sparse_vars)
        sparse_opt.apply_gradients(zip(grads[:n], model.sparse_vars))
        dense_opt.apply_gradients(zip(grads[n:], model.dense_vars))
        if first:
            hvd.broadcast_variables(model.variables, root_rank=0)
            hvd.broadcast_variables(sparse_opt.variables, root_rank=0)
            hvd.broadcast_variables(dense_opt.variables, root_rank=0)
        return loss

    t0 = time.time()
    for step, (dense, cat, y) in enumerate(train_ds.take(cfg.train_steps)):
        loss = step_fn(dense, cat, y, step == 0)
        if hvd.rank() == 0 and step % 500 == 0:
            print("step %d loss %.5f (%.1fs)" % (step, float(loss), time.time() - t0), flush=True)
        if (step + 1) % cfg.eval_every == 0:
            auc, ll = auc_logloss(model, eval_ds)
            if hvd.rank() == 0:
                print("eval step %d auc %.5f logloss %.5f" % (step + 1, auc, ll), flush=True)
                sharded_ckpt.save(model, step + 1, cfg.out_dir, cfg.num_shards)


if __name__ == "__main__":
    main()
