"""Two-tower retrieval on MIND-small clicks with a Horovod custom loop.

    horovodrun -np 4 python train.py --config configs/mind_small.json
"""
import argparse

import tensorflow as tf
import horovod.tensorflow as hvd

from twotower.config import RunConfig
from twotower.data import click_dataset, eval_pairs, worker_files
from twotower.model import TwoTower
from twotower.train_utils import GlobalMean, RankZeroCheckpoint, make_optimizer, pin_gpu, recall_at_k

ap = argparse.ArgumentParser()
ap.add_argument("--config", default="configs/mind_small.json")
cfg = RunConfig.from_json(ap.parse_args().config)

hvd.init()
pin_gpu()

files = worker_files(cfg.data["train_files"], hvd.rank(), hvd.size())
train_ds = click_dataset(files, cfg.data["batch_size"], seed=hvd.rank())
model = TwoTower(cfg.data["num_users"], cfg.data["num_items"], cfg.model["dim"], cfg.model["temperature"])
optimizer = make_optimizer(cfg.optim)
ckpt = RankZeroCheckpoint(cfg.train["ckpt_dir"], model=model, optimizer=optimizer)


@tf.function
def train_step(users, items, first_batch):
    with tf.GradientTape() as tape:
        logits = model((users, items))
        labels = tf.range(tf.shape(logits)[0])
        loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(labels, logits))
    # embedding gradients are IndexedSlices; densify them for the allreduce
    tape = hvd.DistributedGradientTape(tape, sparse_as_dense=True)
    grads = tape.gradient(loss, model.trainable_variables)
    optimizer.apply_gradients(zip(grads, model.trainable_variables))
    if first_batch:
        hvd.broadcast_variables(model.variables, root_rank=0)
        hvd.broadcast_variables(optimizer.variables, root_rank=0)
    return loss


eval_users, eval_items = eval_pairs(cfg.data["eval_file"])
train_loss = GlobalMean("train_loss")
step = 0
it = iter(train_ds)
for epoch in range(cfg.train["epochs"]):
    train_loss.reset()
    for _ in range(cfg.train["steps_per_epoch"]):
        users, items = next(it)
        train_loss.update(train_step(users, items, step == 0))
        step += 1
    mean_loss = train_loss.result()
    if hvd.rank() == 0:
        msg = f"epoch {epoch}: train loss {mean_loss:.4f}"
        if (epoch + 1) % cfg.train["eval_every"] == 0:
            msg += f"  recall@50 {recall_at_k(model, eval_users, eval_items):.4f}"
        print(msg, flush=True)
    ckpt.save(step)
