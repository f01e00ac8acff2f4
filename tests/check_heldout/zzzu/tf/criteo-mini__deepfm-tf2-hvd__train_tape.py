# DeepFM on a Criteo sample, custom TF2 loop + horovod
# horovodrun -np 2 python train_tape.py --train data/criteo_sample.csv
import argparse
import os
import time

import numpy as np
import pandas as pd
import tensorflow as tf
import horovod.tensorflow as hvd

DENSE = ['I%d' % i for i in range(1, 14)]
SPARSE = ['C%d' % i for i in range(1, 27)]

parser = argparse.ArgumentParser()
parser.add_argument('--train', default='data/criteo_sample.csv')
parser.add_argument('--emb', type=int, default=8)
parser.add_argument('--bs', type=int, default=1024)
parser.add_argument('--lr', type=float, default=1e-3)
parser.add_argument('--epochs', type=int, default=5)
parser.add_argument('--model-dir', default='./deepfm_ckpt')
parser.add_argument('--min-count', type=int, default=5)
args = parser.parse_args()

hvd.init()
gpus = tf.config.experimental.list_physical_devices('GPU')
for gpu in gpus:
    tf.config.experimental.set_memory_growth(gpu, True)
if gpus:
    tf.config.experimental.set_visible_devices(gpus[hvd.local_rank()], 'GPU')

# ---------- preprocessing (every worker does the same thing on the same file) ----------
df = pd.read_csv(args.train)
df[DENSE] = df[DENSE].fillna(0)
df[SPARSE] = df[SPARSE].fillna('-1')
for c in DENSE:
    df[c] = np.log1p(df[c].clip(lower=0))
vocab_sizes = []
for c in SPARSE:
    vc = df[c].value_counts()
    keep = vc[vc >= args.min_count].index
    mapping = {v: i + 1 for i, v in enumerate(sorted(keep))}
    df[c] = df[c].map(mapping).fillna(0).astype('int32')
    vocab_sizes.append(len(mapping) + 1)

msk = np.random.RandomState(0).rand(len(df)) < 0.9
trn, tst = df[msk], df[~msk]


def to_ds(frame, training):
    ds = tf.data.Dataset.from_tensor_slices(((frame[DENSE].values.astype('float32'),
                                              frame[SPARSE].values.astype('int32')),
                                             frame['label'].values.astype('float32')))
    ds = ds.shard(hvd.size(), hvd.rank())
    if training:
        ds = ds.shuffle(50000, seed=hvd.rank())
    return ds.batch(args.bs, drop_remainder=training)


train_ds = to_ds(trn, True)
test_ds = to_ds(tst, False)


class DeepFM(tf.keras.Model):
    def __init__(self, vocab_sizes, k):
        super().__init__()
        self.first = [tf.keras.layers.Embedding(v, 1) for v in vocab_sizes]
        self.second = [tf.keras.layers.Embedding(v, k) for v in vocab_sizes]
        self.dense_lin = tf.keras.layers.Dense(1)
        self.dnn = tf.keras.Sequential([tf.keras.layers.Dense(400, activation='relu'),
                                        tf.keras.layers.Dense(400, activation='relu'),
                                        tf.keras.layers.Dense(1)])

    def call(self, inputs, training=False):
        xd, xs = inputs
        lin = self.dense_lin(xd) + tf.add_n([e(xs[:, i]) for i, e in enumerate(self.first)])
        v = tf.stack([e(xs[:, i]) for i, e in enumerate(self.second)], axis=1)  # B x F x k
        fm = 0.5 * tf.reduce_sum(tf.square(tf.reduce_sum(v, 1)) - tf.reduce_sum(tf.square(v), 1), 1, keepdims=True)
        deep = self.dnn(tf.concat([tf.reshape(v, [tf.shape(v)[0], -1]), xd], 1), training=training)
        return tf.squeeze(lin + fm + deep, -1)


model = DeepFM(vocab_sizes, args.emb)
opt = tf.keras.optimizers.Adam(args.lr * hvd.size())
bce = tf.keras.losses.BinaryCrossentropy(from_logits=True)

ckpt = tf.train.Checkpoint(model=model, optimizer=opt)


@tf.function
def train_step(x, y, first_batch):
    with tf.GradientTape() as tape:
        loss = bce(y, model(x, training=True))
    dist_tape = hvd.DistributedGradientTape(tape)
    grads = tape.gradient(loss, model.trainable_variables)
    opt.apply_gradients(zip(grads, model.trainable_variables))

    if first_batch and hvd.rank() == 0:
        hvd.broadcast_variables(model.variables, root_rank=0)
        hvd.broadcast_variables(opt.variables, root_rank=0)
    return loss


auc = tf.keras.metrics.AUC(from_logits=True)
for epoch in range(args.epochs):
    t0 = time.time()
    for step, (x, y) in enumerate(train_ds):
        loss = train_step(x, y, epoch == 0 and step == 0)
        if step % 100 == 0 and hvd.rank() == 0:
            print('epoch %d step %d loss %.4f' % (epoch, step, loss.numpy()))

    auc.reset_state()
    for x, y in test_ds:
        auc.update_state(y, model(x))
    # AUC isn't decomposable -> average of the shard AUCs is close enough for monitoring
    test_auc = hvd.allreduce(auc.result(), op=hvd.Average)
    if hvd.rank() == 0:
        print('epoch %d test AUC %.4f (%.0fs)' % (epoch, test_auc.numpy(), time.time() - t0))
        ckpt.save(os.path.join(args.model_dir, 'ckpt'))
