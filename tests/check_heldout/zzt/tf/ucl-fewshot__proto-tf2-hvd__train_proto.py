"""Prototypical networks in TF2 with a custom training loop, data-parallel over episodes.

horovodrun -np 8 python train_proto.py --data=/datasets/omniglot28_nhwc.npz --n_way=60
"""
import os

import numpy as np
import tensorflow as tf
import keras
import horovod.tensorflow as hvd
from absl import app, flags, logging

from protonet.backbone import conv4
from protonet.episodes import EpisodeGenerator
from protonet.hvd_utils import broadcast_state, init_horovod
from protonet.stats import mean_confidence

FLAGS = flags.FLAGS
flags.DEFINE_string("data", "data/omniglot28_nhwc.npz", "npz with x_train/y_train/x_test/y_test")
flags.DEFINE_integer("n_way", 20, "classes per training episode")
flags.DEFINE_integer("k_shot", 5, "")
flags.DEFINE_integer("n_query", 5, "")
flags.DEFINE_integer("steps", 20000, "optimizer steps (one episode per rank per step)")
flags.DEFINE_integer("eval_every", 2000, "")
flags.DEFINE_integer("test_episodes", 1000, "total over all ranks")
flags.DEFINE_float("lr", 1e-3, "single-worker learning rate")
flags.DEFINE_string("model_dir", "models/protonet", "")


def proto_logits(encoder, xs, xq, n_way, training):
    emb = encoder(tf.concat([xs, xq], 0), training=training)
    n_s = tf.shape(xs)[0]
    protos = tf.reduce_mean(tf.reshape(emb[:n_s], [n_way, -1, emb.shape[-1]]), axis=1)
    q = emb[n_s:]
    return -tf.reduce_sum(tf.square(q[:, None, :] - protos[None]), axis=-1)


def main(_):
    rank, size = init_horovod()
    data = np.load(FLAGS.data)
    train_gen = EpisodeGenerator(data["x_train"], data["y_train"], FLAGS.n_way, FLAGS.k_shot, FLAGS.n_query,
                                 seed=rank)
    test_gen = EpisodeGenerator(data["x_test"], data["y_test"], 5, FLAGS.k_shot, 15, seed=1000 + rank)

    encoder = conv4(data["x_train"].shape[1:])
    opt = keras.optimizers.Adam(FLAGS.lr * size)
    labels = tf.repeat(tf.range(FLAGS.n_way), FLAGS.n_query)

    @tf.function
    def train_step(xs, xq, first):
        with tf.GradientTape() as tape:
            logits = proto_logits(encoder, xs, xq, FLAGS.n_way, True)
            loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(labels, logits))
        tape = hvd.DistributedGradientTape(tape)
        grads = tape.gradient(loss, encoder.trainable_variables)
        opt.apply_gradients(zip(grads, encoder.trainable_variables))
        if first:
            broadcast_state(encoder, opt)
        return loss

    def evaluate():
        accs = []
        test_labels = np.repeat(np.arange(5), 15)
        for _ in range(FLAGS.test_episodes // size):
            xs, xq = test_gen()
            pred = tf.argmax(proto_logits(encoder, xs, xq, 5, False), axis=1).numpy()
            accs.append((pred == test_labels).mean())
        return mean_confidence(hvd.allgather(tf.constant(accs)).numpy())

    ckpt_path = os.path.join(FLAGS.model_dir, "encoder.weights.h5")
    for step in range(FLAGS.steps):
        xs, xq = train_gen()
        loss = train_step(xs, xq, step == 0)
        if (step + 1) % FLAGS.eval_every == 0:
            acc, ci = evaluate()
            if rank == 0:
                logging.info("step %d loss %.4f 5-way %d-shot acc %.2f%% +- %.2f", step + 1, float(loss),
                             FLAGS.k_shot, 100 * acc, 100 * ci)
                os.makedirs(FLAGS.model_dir, exist_ok=True)
                encoder.save_weights(ckpt_path)


if __name__ == "__main__":
    app.run(main)
