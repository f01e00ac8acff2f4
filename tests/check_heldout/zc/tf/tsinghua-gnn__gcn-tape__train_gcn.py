# Semi-supervised node classification with a 2-layer GCN (Kipf & Welling), TF2 + Horovod.
# The labelled training nodes are split between the workers; every worker keeps the whole graph
# (it fits in memory) and evaluates on the full validation / test sets.
import argparse
import time

import numpy as np
import tensorflow as tf
import horovod.tensorflow as hvd

parser = argparse.ArgumentParser()
parser.add_argument('--dataset', default='synthetic')
parser.add_argument('--hidden', type=int, default=64)
parser.add_argument('--lr', type=float, default=0.01)
parser.add_argument('--weight_decay', type=float, default=5e-4)
parser.add_argument('--dropout', type=float, default=0.5)
parser.add_argument('--epochs', type=int, default=200)
parser.add_argument('--save_path', default='./saved/gcn')
FLAGS = parser.parse_args()

hvd.init()


def load_graph(name, seed=0):
    """Returns dense features, symmetric-normalised adjacency (sparse), labels and the public split."""
    if name != 'synthetic':
        d = np.load(f'data/{name}.npz')
        x, adj, y = d['x'], d['adj'], d['y']
    else:
        rng = np.random.RandomState(seed)
        n, c = 2708, 7
        y = rng.randint(0, c, n)
        p = np.where(y[:, None] == y[None, :], 0.004, 0.0004)
        adj = np.triu(rng.rand(n, n) < p, 1)
        adj = (adj | adj.T).astype(np.float32)
        x = (rng.rand(n, 256) < 0.02).astype(np.float32)
        x[np.arange(n), y] += 1.0
    adj = adj + np.eye(len(adj), dtype=np.float32)
    d_inv = 1.0 / np.sqrt(adj.sum(1))
    a_hat = adj * d_inv[:, None] * d_inv[None, :]
    r, c_ = np.nonzero(a_hat)
    a_sp = tf.sparse.reorder(tf.SparseTensor(np.stack([r, c_], 1).astype(np.int64), a_hat[r, c_], a_hat.shape))
    perm = np.random.RandomState(42).permutation(len(y))
    return x, a_sp, y.astype(np.int64), perm[:1400], perm[1400:1900], perm[1900:]


class GCN(tf.keras.Model):
    def __init__(self, hidden, n_classes, dropout):
        super().__init__()
        self.w1 = tf.keras.layers.Dense(hidden, use_bias=False)
        self.w2 = tf.keras.layers.Dense(n_classes, use_bias=False)
        self.drop = tf.keras.layers.Dropout(dropout)

    def call(self, inputs, training=False):
        x, a = inputs
        h = tf.nn.relu(tf.sparse.sparse_dense_matmul(a, self.w1(self.drop(x, training=training))))
        return tf.sparse.sparse_dense_matmul(a, self.w2(self.drop(h, training=training)))


x, a_hat, y, idx_train, idx_val, idx_test = load_graph(FLAGS.dataset)
my_idx = idx_train[hvd.rank()::hvd.size()]  # same permutation everywhere -> disjoint node sets
x = tf.constant(x)
model = GCN(FLAGS.hidden, int(y.max()) + 1, FLAGS.dropout)
model((x, a_hat))
# the labelled node set is the global batch, as on one GPU, so the single-GPU lr stays
opt = tf.keras.optimizers.Adam(FLAGS.lr)
ckpt = tf.train.Checkpoint(model=model, optimizer=opt)
loss_obj = tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True)


@tf.function
def train_step(first_batch):
    with tf.GradientTape() as tape:
        logits = model((x, a_hat), training=True)
        loss = loss_obj(tf.gather(y, my_idx), tf.gather(logits, my_idx))
        loss += FLAGS.weight_decay * tf.nn.l2_loss(model.w1.kernel)
    tape = hvd.DistributedGradientTape(tape)
    grads = tape.gradient(loss, model.trainable_variables)
    opt.apply_gradients(zip(grads, model.trainable_variables))
    if first_batch:
        hvd.broadcast_variables(model.variables, root_rank=0)
        hvd.broadcast_variables(opt.variables, root_rank=0)
    return loss


def accuracy(idx):
    pred = tf.argmax(model((x, a_hat), training=False), 1).numpy()
    return float((pred[idx] == y[idx]).mean())


best_val = 0.0
for epoch in range(FLAGS.epochs):
    t = time.time()
    loss = train_step(epoch == 0)
    val_acc = accuracy(idx_val)
    if val_acc > best_val:
        best_val = val_acc
        ckpt.write(FLAGS.save_path)
    if hvd.rank() == 0 and epoch % 10 == 0:
        print('epoch %03d loss %.4f val_acc %.4f (%.3fs)' % (epoch, float(loss), val_acc, time.time() - t))

if hvd.rank() == 0:
    ckpt.read(FLAGS.save_path)
    print('test accuracy %.4f' % accuracy(idx_test))
