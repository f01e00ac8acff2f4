"""BACE classification pipeline: prep -> train -> eval, each stage a function.

    horovodrun -np 4 python pipeline.py                       # all stages
    horovodrun -np 4 python pipeline.py --stages train,eval   # reuse the prepared arrays
"""
import os

import numpy as np
import tensorflow as tf
import horovod.tensorflow as hvd

from gnnpipe.config import get_config
from gnnpipe.data import featurize_fake, save_arrays, load_arrays, make_dataset
from gnnpipe.model import GGNN
from gnnpipe.evaluate import distributed_auc
from gnnpipe.io_utils import save_weights, log


def arrays_path(cfg):
    return os.path.join(cfg.work_dir, "bace_arrays.npz")


def prep_stage(cfg):
    if hvd.rank() == 0 and not os.path.exists(arrays_path(cfg)):
        x, adj, mask, y = featurize_fake(cfg.n_mols, cfg.max_atoms)
        save_arrays(arrays_path(cfg), x=x, adj=adj, mask=mask, y=y)
    hvd.join()


def split_ids(n):
    ids = np.arange(n)
    return ids[: int(0.8 * n)], ids[int(0.8 * n): int(0.9 * n)], ids[int(0.9 * n):]


def train_stage(cfg):
    arrays = load_arrays(arrays_path(cfg))
    tr, va, _ = split_ids(len(arrays[3]))
    train_ds = make_dataset(arrays, tr, cfg.batch_size, shuffle=True)
    val_ds = make_dataset(arrays, va, cfg.batch_size, shuffle=False)

    model = GGNN(cfg.hidden, cfg.layers)
    opt = tf.keras.optimizers.Adam(cfg.lr * hvd.size())
    bce = tf.keras.losses.BinaryCrossentropy(from_logits=True)

    @tf.function
    def step(x, adj, mask, y, first):
        with tf.GradientTape() as tape:
            loss = bce(y, model(x, adj, mask, training=True))
        grads = tape.gradient(loss, model.trainable_variables)
        tape = hvd.DistributedGradientTape(tape)
        opt.apply_gradients(zip(grads, model.trainable_variables))
        if first:
            hvd.broadcast_variables(model.variables, root_rank=0)
            hvd.broadcast_variables(opt.variables, root_rank=0)
        return loss

    best = -1.0
    for epoch in range(cfg.epochs):
        for i, (x, adj, mask, y) in enumerate(train_ds):
            loss = step(x, adj, mask, y, epoch == 0 and i == 0)
        auc = distributed_auc(model, val_ds)
        log("epoch %d loss %.4f val AUC %.4f" % (epoch, float(loss), auc))
        if auc > best:
            best = auc
            save_weights(model, cfg.work_dir, "best")
    return model


def eval_stage(cfg, model=None):
    arrays = load_arrays(arrays_path(cfg))
    _, _, te = split_ids(len(arrays[3]))
    if model is None:
        model = GGNN(cfg.hidden, cfg.layers)
        x, adj, mask, _ = arrays
        model(x[:1], adj[:1], mask[:1])
        model.load_weights(os.path.join(cfg.work_dir, "ggnn_best.weights.h5"))
    auc = distributed_auc(model, make_dataset(arrays, te, cfg.batch_size, shuffle=False))
    log("test AUC %.4f" % auc)


STAGES = {"prep": prep_stage, "train": train_stage, "eval": eval_stage}


def main(argv=None):
    cfg = get_config(argv)
    hvd.init()
    gpus = tf.config.list_physical_devices("GPU")
    for g in gpus:
        tf.config.experimental.set_memory_growth(g, True)
    if gpus:
        tf.config.set_visible_devices(gpus[hvd.local_rank()], "GPU")
    model = None
    for name in cfg.stages:
        log("stage", name)
        if name == "eval":
            eval_stage(cfg, model)
        else:
            model = STAGES[name](cfg)


if __name__ == "__main__":
    main()
