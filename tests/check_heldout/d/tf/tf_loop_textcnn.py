#!/usr/bin/env python3
# Text classification (AG News, 4 classes) with a small transformer block.
# Custom training loop so I can log per-step stuff. Horovod for multi-GPU.
import time
import logging
import numpy as np
import tensorflow as tf
import horovod.tensorflow as hvd

logging.basicConfig(level=logging.INFO)
logger = logging.getLogger(__name__)

params = {
    "vocab_size": 20000,
    "seq_len": 128,
    "embed_dim": 128,
    "num_heads": 4,
    "ff_dim": 256,
    "batch_size": 64,
    "learning_rate": 5e-4,
    "epochs": 6,
    "train_npz": "data/agnews_train_tok.npz",
    "test_npz": "data/agnews_test_tok.npz",
    "save_dir": "saved/textcls",
}


class TransformerBlock(tf.keras.layers.Layer):
    def __init__(self, d, heads, ff, rate=0.1):
        super().__init__()
        self.att = tf.keras.layers.MultiHeadAttention(num_heads=heads, key_dim=d)
        self.ffn = tf.keras.Sequential([tf.keras.layers.Dense(ff, activation="relu"), tf.keras.layers.Dense(d)])
        self.n1 = tf.keras.layers.LayerNormalization(epsilon=1e-6)
        self.n2 = tf.keras.layers.LayerNormalization(epsilon=1e-6)
        self.d1 = tf.keras.layers.Dropout(rate)
        self.d2 = tf.keras.layers.Dropout(rate)

    def call(self, x, training=False):
        h = self.n1(x + self.d1(self.att(x, x), training=training))
        return self.n2(h + self.d2(self.ffn(h), training=training))


def build_model(p):
    inp = tf.keras.Input(shape=(p["seq_len"],))
    tok = tf.keras.layers.Embedding(p["vocab_size"], p["embed_dim"])(inp)
    pos = tf.keras.layers.Embedding(p["seq_len"], p["embed_dim"])(tf.range(p["seq_len"]))
    x = TransformerBlock(p["embed_dim"], p["num_heads"], p["ff_dim"])(tok + pos)
    x = tf.keras.layers.GlobalAveragePooling1D()(x)
    x = tf.keras.layers.Dropout(0.1)(x)
    out = tf.keras.layers.Dense(4)(x)
    return tf.keras.Model(inp, out)


def load(path):
    d = np.load(path)
    return d["x"].astype("int32"), d["y"].astype("int32")


def main():
    hvd.init()
    p = params

    x_tr, y_tr = load(p["train_npz"])
    x_te, y_te = load(p["test_npz"])
    ds = tf.data.Dataset.from_tensor_slices((x_tr, y_tr))
    ds = ds.shard(hvd.size(), hvd.rank()).shuffle(20000).batch(p["batch_size"]).prefetch(2)
    test_ds = tf.data.Dataset.from_tensor_slices((x_te, y_te)).batch(512)

    model = build_model(p)
    optimizer = tf.keras.optimizers.Adam(p["learning_rate"] * hvd.size())
    loss_fn = tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True)

    @tf.function
    def train_step(x, y):
        with tf.GradientTape() as tape:
            logits = model(x, training=True)
            loss = loss_fn(y, logits)
        dist_tape = hvd.DistributedGradientTape(tape)
        grads = tape.gradient(loss, model.trainable_variables)
        optimizer.apply_gradients(zip(grads, model.trainable_variables))
        return loss

    @tf.function
    def test_step(x, y):
        logits = model(x, training=False)
        return tf.reduce_sum(tf.cast(tf.argmax(logits, -1, output_type=tf.int32) == y, tf.float32))

    step = 0
    for epoch in range(p["epochs"]):
        t0 = time.time()
        losses = []
        for x, y in ds:
            loss = train_step(x, y)
            if step == 0:
                hvd.broadcast_variables(model.variables, root_rank=0)
                hvd.broadcast_variables(optimizer.variables(), root_rank=0)
            losses.append(float(loss))
            step += 1
        epoch_loss = hvd.allreduce(tf.constant(np.mean(losses)), name="epoch_loss")
        correct = sum(float(test_step(x, y)) for x, y in test_ds)
        if hvd.rank() == 0:
            logger.info("epoch %d loss %.4f test acc %.4f (%.1fs)", epoch, float(epoch_loss),
                        correct / len(y_te), time.time() - t0)
            model.save_weights(f"{p['save_dir']}/epoch_{epoch}.weights.h5")


if __name__ == "__main__":
    main()
