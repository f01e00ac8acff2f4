# Two-tower candidate retrieval with in-batch negatives.
#   horovodrun -np 8 python train.py --data_dir /data/retrieval/logs --train_days 14
import os

import numpy as np
import tensorflow as tf
import horovod.tensorflow as hvd

from twotower.flags import parse_flags
from twotower import dist, data
from twotower.towers import TwoTower
from twotower.metrics import in_batch_softmax_loss, in_batch_recall

FLAGS = parse_flags()
dist.setup(FLAGS)

files = data.day_files(FLAGS.data_dir, FLAGS.train_days)
eval_files, train_files = files[-8:], files[:-8]
train_ds = data.make_dataset(train_files, FLAGS.batch_size, hvd.rank(), hvd.size())
eval_ds = data.make_dataset(eval_files, FLAGS.batch_size, hvd.rank(), hvd.size(), eval_split=True)

model = TwoTower(FLAGS.user_buckets, FLAGS.item_buckets, FLAGS.dim)
emb_opt = tf.keras.optimizers.Adagrad(learning_rate=FLAGS.emb_lr * hvd.size())
dense_opt = tf.keras.optimizers.Adam(learning_rate=FLAGS.lr * hvd.size())


@tf.function
def train_step(batch, first_batch):
    with tf.GradientTape() as tape:
        u, v = model(batch)
        loss = in_batch_softmax_loss(u, v, FLAGS.temperature)
    tape = hvd.DistributedGradientTape(tape)
    emb_vars = model.user.embedding_variables() + model.item.embedding_variables()
    dense_vars = model.user.dense_variables() + model.item.dense_variables()
    grads = tape.gradient(loss, emb_vars + dense_vars)
    emb_opt.apply_gradients(zip(grads[:len(emb_vars)], emb_vars))
    dense_opt.apply_gradients(zip(grads[len(emb_vars):], dense_vars))
    if first_batch:
        hvd.broadcast_variables(model.variables, root_rank=0)
        hvd.broadcast_variables(emb_opt.variables, root_rank=0)
        hvd.broadcast_variables(dense_opt.variables, root_rank=0)
    return loss


def run_eval(max_batches=200):
    rs = []
    for i, b in enumerate(eval_ds):
        if i >= max_batches:
            break
        u, v = model(b)
        rs.append(float(in_batch_recall(u, v)))
    local = np.mean(rs) if rs else 0.0
    return hvd.allreduce(tf.constant(local, tf.float32), op=hvd.Sum).numpy()


def export_item_table(step):
    table = model.item.table.embeddings.numpy()
    out = os.path.join(FLAGS.export_dir, "step_%d" % step)
    os.makedirs(out, exist_ok=True)
    for k, chunk in enumerate(np.array_split(table, FLAGS.emb_shards)):
        np.save(os.path.join(out, "item_table_%02d.npy" % k), chunk)
    model.save_weights(os.path.join(out, "two_tower.weights.h5"))


for step, batch in enumerate(train_ds.take(FLAGS.steps)):
    loss = train_step(batch, step == 0)
    if step % 200 == 0 and dist.is_chief():
        print("step", step, "loss", float(loss), flush=True)
    if step > 0 and step % FLAGS.eval_every == 0:
        recall = run_eval()
        if dist.is_chief():
            print("step %d in-batch recall@10 = %.4f" % (step, recall), flush=True)
            export_item_table(step)
