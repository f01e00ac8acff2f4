"""Word-level PTB language model (2-layer LSTM, "medium" config of Zaremba et al.), Horovod.

Ported from our TF 1.15 code to run under TF 2 through tf.compat.v1.

    mpirun -np 4 python ptb_hvd.py --data_path=simple-examples/data --save_path=/tmp/ptb
"""
import argparse
import collections
import os
import time

import numpy as np
import tensorflow as tf
import horovod.tensorflow as hvd

tf1 = tf.compat.v1


def _read_words(path):
    with open(path, encoding="utf-8") as f:
        return f.read().replace("\n", "<eos>").split()


def ptb_raw_data(data_path):
    train = _read_words(os.path.join(data_path, "ptb.train.txt"))
    counter = collections.Counter(train)
    words = [w for w, _ in sorted(counter.items(), key=lambda x: (-x[1], x[0]))]
    word_to_id = {w: i for i, w in enumerate(words)}

    def ids(name):
        return np.array([word_to_id[w] for w in _read_words(os.path.join(data_path, name))
                         if w in word_to_id], dtype=np.int32)

    return ids("ptb.train.txt"), ids("ptb.valid.txt"), ids("ptb.test.txt"), len(word_to_id)


def random_batch(data, batch_size, num_steps):
    """Random windows of num_steps+1 tokens."""
    starts = np.random.randint(0, len(data) - num_steps - 1, size=batch_size)
    window = np.stack([data[s:s + num_steps + 1] for s in starts])
    return window[:, :-1], window[:, 1:]


def lstm_layer(inputs, hidden, name, keep_prob):
    """Unrolled LSTM written with plain variables (no contrib / Keras cells)."""
    in_dim = int(inputs.shape[-1])
    with tf1.variable_scope(name):
        w = tf1.get_variable("w", [in_dim + hidden, 4 * hidden],
                             initializer=tf1.random_uniform_initializer(-0.05, 0.05))
        b = tf1.get_variable("b", [4 * hidden], initializer=tf1.zeros_initializer())
    batch = tf.shape(inputs)[0]
    h = tf.zeros([batch, hidden])
    c = tf.zeros([batch, hidden])
    outputs = []
    for t in range(int(inputs.shape[1])):
        z = tf.matmul(tf.concat([inputs[:, t], h], 1), w) + b
        i, j, f, o = tf.split(z, 4, axis=1)
        c = c * tf.sigmoid(f + 1.0) + tf.sigmoid(i) * tf.tanh(j)
        h = tf.tanh(c) * tf.sigmoid(o)
        outputs.append(tf.nn.dropout(h, rate=1 - keep_prob))
    return tf.stack(outputs, axis=1)


def build_model(inputs, vocab, hidden, keep_prob):
    emb = tf1.get_variable("embedding", [vocab, hidden],
                           initializer=tf1.random_uniform_initializer(-0.05, 0.05))
    x = tf.nn.dropout(tf.nn.embedding_lookup(emb, inputs), rate=1 - keep_prob)
    x = lstm_layer(x, hidden, "lstm0", keep_prob)
    x = lstm_layer(x, hidden, "lstm1", keep_prob)
    softmax_w = tf1.get_variable("softmax_w", [hidden, vocab])
    softmax_b = tf1.get_variable("softmax_b", [vocab], initializer=tf1.zeros_initializer())
    return tf.einsum("btd,dv->btv", x, softmax_w) + softmax_b


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--data_path", required=True)
    parser.add_argument("--save_path", default="/tmp/ptb")
    parser.add_argument("--batch_size", type=int, default=20)
    parser.add_argument("--num_steps", type=int, default=35)
    parser.add_argument("--hidden", type=int, default=650)
    parser.add_argument("--keep_prob", type=float, default=0.5)
    parser.add_argument("--lr", type=float, default=1.0)
    parser.add_argument("--max_grad_norm", type=float, default=5.0)
    parser.add_argument("--train_steps", type=int, default=60000)
    args = parser.parse_args()

    hvd.init()
    np.random.seed(1234)

    train_data, valid_data, _, vocab = ptb_raw_data(args.data_path)

    inputs = tf1.placeholder(tf.int32, [None, args.num_steps], name="inputs")
    targets = tf1.placeholder(tf.int32, [None, args.num_steps], name="targets")
    keep_prob = tf1.placeholder_with_default(1.0, [], name="keep_prob")
    with tf1.variable_scope("ptb", initializer=tf1.random_uniform_initializer(-0.05, 0.05)):
        logits = build_model(inputs, vocab, args.hidden, keep_prob)
    loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(labels=targets, logits=logits))

    global_step = tf1.train.get_or_create_global_step()
    lr = tf1.train.exponential_decay(args.lr * hvd.size(), global_step, 2 * len(train_data) //
                                     (args.batch_size * args.num_steps * hvd.size()), 0.8, staircase=True)
    opt = hvd.DistributedOptimizer(tf1.train.GradientDescentOptimizer(lr))
    grads_and_vars = opt.compute_gradients(loss)
    grads, tvars = zip(*grads_and_vars)
    grads, _ = tf.clip_by_global_norm(grads, args.max_grad_norm)
    train_op = opt.apply_gradients(zip(grads, tvars), global_step=global_step)

    config = tf1.ConfigProto()
    config.gpu_options.allow_growth = True
    config.gpu_options.visible_device_list = str(hvd.rank())
    bcast = hvd.broadcast_global_variables(0)
    saver = tf1.train.Saver(max_to_keep=3)
    last_step = args.train_steps // hvd.size()

    start, costs, n = time.time(), 0.0, 0
    with tf1.Session(config=config) as sess:
        sess.run(tf1.global_variables_initializer())
        sess.run(bcast)
        for step in range(1, last_step + 1):
            x, y = random_batch(train_data, args.batch_size, args.num_steps)
            cost, _ = sess.run([loss, train_op], {inputs: x, targets: y, keep_prob: args.keep_prob})
            costs += cost
            n += 1
            if hvd.rank() == 0 and step % 1000 == 0:
                # validation perplexity on the whole validation set, computed by rank 0 alone
                vx, vy, vcost = [], [], 0.0
                for s in range(0, len(valid_data) - args.num_steps - 1, args.num_steps):
                    vx.append(valid_data[s:s + args.num_steps])
                    vy.append(valid_data[s + 1:s + args.num_steps + 1])
                for i in range(0, len(vx), 64):
                    vcost += sess.run(loss, {inputs: vx[i:i + 64], targets: vy[i:i + 64]}) * len(vx[i:i + 64])
                print(f"step {step}: train ppl {np.exp(costs / n):.1f}  valid ppl {np.exp(vcost / len(vx)):.1f}"
                      f"  ({time.time() - start:.0f}s)", flush=True)
                costs, n = 0.0, 0
                saver.save(sess, os.path.join(args.save_path, "ptb.ckpt"), global_step=step)


if __name__ == "__main__":
    main()
