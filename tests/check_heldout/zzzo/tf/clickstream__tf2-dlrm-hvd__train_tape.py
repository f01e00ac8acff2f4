# DLRM-ish CTR model, TF2 custom training loop with horovod
# data: /data/clicks/day_XX/part-YYYYY.tfrecord  (label, 13 dense, 26 hashed cats)
#   horovodrun -np 4 python train_tape.py --days 0,1,2,3,4,5 --eval_day 6
import os, sys, time, glob, argparse
import numpy as np
import tensorflow as tf
import horovod.tensorflow as hvd

ap = argparse.ArgumentParser()
ap.add_argument('--data_root', default='/data/clicks')
ap.add_argument('--days', default='0,1,2,3,4,5')
ap.add_argument('--eval_day', type=int, default=6)
ap.add_argument('--vocab', type=int, default=2 ** 21)
ap.add_argument('--dim', type=int, default=32)
ap.add_argument('--batch', type=int, default=8192)
ap.add_argument('--emb_lr', type=float, default=0.05)
ap.add_argument('--mlp_lr', type=float, default=0.001)
ap.add_argument('--steps', type=int, default=20000)
ap.add_argument('--eval_every', type=int, default=2000)
ap.add_argument('--ckpt', default='./ckpt_dlrm')
ap.add_argument('--seed', type=int, default=42)
FLAGS = ap.parse_args()

hvd.init()
gpus = tf.config.experimental.list_physical_devices('GPU')
for g in gpus:
    tf.config.experimental.set_memory_growth(g, True)
if gpus:
    tf.config.experimental.set_visible_devices(gpus[hvd.local_rank()], 'GPU')

FEATS = {'label': tf.io.FixedLenFeature([1], tf.float32),
         'dense': tf.io.FixedLenFeature([13], tf.float32),
         'cat': tf.io.FixedLenFeature([26], tf.int64)}


def parse(rec):
    ex = tf.io.parse_example(rec, FEATS)
    return tf.math.log1p(tf.maximum(ex['dense'], 0.)), ex['cat'] % FLAGS.vocab, ex['label']


def day_files(days):
    out = []
    for d in days:
        out += sorted(glob.glob(os.path.join(FLAGS.data_root, 'day_%02d' % d, 'part-*.tfrecord')))
    return out


train_files = day_files([int(d) for d in FLAGS.days.split(',')])
train_ds = (tf.data.TFRecordDataset(train_files, num_parallel_reads=8)
            .shuffle(100000, seed=FLAGS.seed)  # reproducible runs
            .repeat()
            .batch(FLAGS.batch, drop_remainder=True)
            .map(parse, num_parallel_calls=tf.data.AUTOTUNE)
            .prefetch(4))
eval_ds = (tf.data.TFRecordDataset(day_files([FLAGS.eval_day]))
           .batch(FLAGS.batch)
           .map(parse)
           .shard(hvd.size(), hvd.rank()))


class DLRM(tf.keras.Model):
    def __init__(self):
        super().__init__()
        self.emb = tf.keras.layers.Embedding(FLAGS.vocab, FLAGS.dim, name='table')
        self.bot = tf.keras.Sequential([tf.keras.layers.Dense(256, activation='relu'),
                                        tf.keras.layers.Dense(FLAGS.dim, activation='relu')])
        self.top = tf.keras.Sequential([tf.keras.layers.Dense(512, activation='relu'),
                                        tf.keras.layers.Dense(256, activation='relu'),
                                        tf.keras.layers.Dense(1)])

    def call(self, dense, cat):
        x = self.bot(dense)
        e = self.emb(cat)
        t = tf.concat([x[:, None, :], e], axis=1)
        z = tf.matmul(t, t, transpose_b=True)
        n = t.shape[1]
        li, lj = np.tril_indices(n, -1)
        flat = tf.gather(tf.reshape(z, [-1, n * n]), li * n + lj, axis=1)
        return self.top(tf.concat([x, flat], 1))


model = DLRM()
emb_opt = tf.keras.optimizers.Adagrad(FLAGS.emb_lr * hvd.size())
mlp_opt = tf.keras.optimizers.Adam(FLAGS.mlp_lr * hvd.size())
bce = tf.keras.losses.BinaryCrossentropy(from_logits=True)


@tf.function
def train_step(dense, cat, y):
    with tf.GradientTape() as tape:
        loss = bce(y, model(dense, cat))
    tape = hvd.DistributedGradientTape(tape)
    emb_vars = model.emb.trainable_variables
    mlp_vars = model.bot.trainable_variables + model.top.trainable_variables
    grads = tape.gradient(loss, emb_vars + mlp_vars)
    emb_opt.apply_gradients(zip(grads[:len(emb_vars)], emb_vars))
    mlp_opt.apply_gradients(zip(grads[len(emb_vars):], mlp_vars))
    return loss


def batch_auc(y, p):
    # rank statistic, ties ignored
    o = np.argsort(p)
    y = y[o]
    npos = y.sum()
    nneg = len(y) - npos
    if npos == 0 or nneg == 0:
        return np.nan
    return (np.arange(1, len(y) + 1)[y == 1].sum() - npos * (npos + 1) / 2.) / (npos * nneg)


def evaluate():
    aucs, lls, ns = [], [], []
    for dense, cat, y in eval_ds:
        logit = model(dense, cat)
        p = tf.sigmoid(logit).numpy().ravel()
        yy = y.numpy().ravel()
        aucs.append(batch_auc(yy, p))
        lls.append(bce(y, logit).numpy())
        ns.append(len(yy))
    ns = np.array(ns, dtype=np.float64)
    local = np.array([np.nansum(np.array(aucs) * ns), np.sum(np.array(lls) * ns), ns.sum()])
    tot = hvd.allreduce(tf.constant(local), op=hvd.Sum).numpy()
    return tot[0] / tot[2], tot[1] / tot[2]


ckpt = tf.train.Checkpoint(model=model, emb_opt=emb_opt, mlp_opt=mlp_opt)
mgr = tf.train.CheckpointManager(ckpt, FLAGS.ckpt, max_to_keep=3)

t0 = time.time()
for step, (dense, cat, y) in enumerate(train_ds.take(FLAGS.steps)):
    loss = train_step(dense, cat, y)
    if step == 0:
        # sync initial weights + optimizer slots from rank 0
        hvd.broadcast_global_variables(0)
    if step % 100 == 0 and hvd.rank() == 0:
        print('step %d loss %.5f  %.0f ex/s' % (step, loss.numpy(), (step + 1) * FLAGS.batch * hvd.size() / (time.time() - t0)))
    if step > 0 and step % FLAGS.eval_every == 0:
        auc, ll = evaluate()
        if hvd.rank() == 0:
            print('step %d eval auc %.5f logloss %.5f' % (step, auc, ll))
            mgr.save(checkpoint_number=step)

if hvd.rank() == 0:
    mgr.save(checkpoint_number=FLAGS.steps)
