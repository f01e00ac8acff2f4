"""Dual encoder (image features <-> captions) in plain TF2 with Horovod.

Every worker's batch contributes negatives to every other worker through hvd.allgather.
Run:  horovodrun -np 2 python dual_encoder_hvd.py --data ./data/f30k --epochs 10
"""
import argparse
import os

import numpy as np
import tensorflow as tf
import horovod.tensorflow as hvd

CONFIG = dict(
    per_worker_batch=64,
    base_lr=1e-3,
    boundaries=(6, 9),       # epochs at which the lr drops by 10x
    temperature_init=0.05,
    dim=256,
    seq_len=24,
)


def load(path):
    feats = np.load(os.path.join(path, "image_feats.npy")).astype(np.float32)
    ids, caps = zip(*(l.rstrip("\n").split("\t", 1) for l in open(os.path.join(path, "captions.tsv"))))
    return feats[np.array(ids, dtype=int)], np.array(caps)


class DualEncoder(tf.keras.Model):
    def __init__(self, vectorizer, dim, t0):
        super().__init__()
        self.vec = vectorizer
        self.emb = tf.keras.layers.Embedding(vectorizer.vocabulary_size(), 200)
        self.txt = tf.keras.layers.Dense(dim)
        self.img = tf.keras.Sequential([tf.keras.layers.Dense(512, activation="relu"), tf.keras.layers.Dense(dim)])
        self.log_t = tf.Variable(np.log(t0), dtype=tf.float32, name="log_temperature")

    def encode_text(self, s):
        return tf.math.l2_normalize(self.txt(tf.reduce_mean(self.emb(self.vec(s)), 1)), -1)

    def encode_image(self, x):
        return tf.math.l2_normalize(self.img(x), -1)


class DualEncoderTrainer:
    def __init__(self, model, optimizer, ckpt_dir):
        self.model, self.opt = model, optimizer
        self.ckpt = tf.train.Checkpoint(model=model, optimizer=optimizer)
        self.manager = tf.train.CheckpointManager(self.ckpt, ckpt_dir, max_to_keep=2) if hvd.rank() == 0 else None

    def loss_fn(self, x, s):
        zi, zt = self.model.encode_image(x), self.model.encode_text(s)
        gi, gt = hvd.allgather(zi), hvd.allgather(zt)
        b = tf.shape(zi)[0]
        y = tf.range(b) + hvd.rank() * b
        scale = tf.exp(-self.model.log_t)
        ce = tf.nn.sparse_softmax_cross_entropy_with_logits
        return 0.5 * tf.reduce_mean(ce(y, scale * tf.matmul(zi, gt, transpose_b=True))
                                    + ce(y, scale * tf.matmul(zt, gi, transpose_b=True)))

    @tf.function
    def step(self, x, s):
        with tf.GradientTape() as tape:
            loss = self.loss_fn(x, s)
        tape = hvd.DistributedGradientTape(tape)
        variables = self.model.trainable_variables
        self.opt.apply_gradients(zip(tape.gradient(loss, variables), variables))
        return loss

    def evaluate(self, feats, caps, ks=(1, 5, 10)):
        # gallery embedded once (whole split); queries split over workers; hits summed
        gallery = self.model.encode_image(feats)
        q_idx = np.arange(hvd.rank(), len(caps), hvd.size())
        sims = tf.matmul(self.model.encode_text(caps[q_idx]), gallery, transpose_b=True).numpy()
        rank_of_gt = (sims > sims[np.arange(len(q_idx)), q_idx][:, None]).sum(1)
        hits = np.array([(rank_of_gt < k).sum() for k in ks] + [len(q_idx)], dtype=np.float64)
        hits = hvd.allreduce(tf.constant(hits), op=hvd.Sum, name="eval_hits").numpy()
        return {f"R@{k}": hits[i] / hits[-1] for i, k in enumerate(ks)}

    def save(self):
        if self.manager is not None:
            return self.manager.save()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--data", default="./data/f30k")
    ap.add_argument("--epochs", type=int, default=10)
    ap.add_argument("--ckpt-dir", default="./ckpt_dual")
    args = ap.parse_args()
    cfg = CONFIG

    hvd.init()
    for g in tf.config.list_physical_devices("GPU"):
        tf.config.experimental.set_memory_growth(g, True)
    gpus = tf.config.list_physical_devices("GPU")
    if gpus:
        tf.config.set_visible_devices(gpus[hvd.local_rank()], "GPU")

    tr_x, tr_s = load(os.path.join(args.data, "train"))
    va_x, va_s = load(os.path.join(args.data, "val"))
    vec = tf.keras.layers.TextVectorization(max_tokens=20000, output_sequence_length=cfg["seq_len"])
    vec.adapt(tr_s)

    n_local = len(tr_x) // hvd.size()
    steps = n_local // cfg["per_worker_batch"]
    ds = (tf.data.Dataset.from_tensor_slices((tr_x, tr_s))
          .shard(hvd.size(), hvd.rank())
          .take(n_local)
          .shuffle(n_local)
          .batch(cfg["per_worker_batch"], drop_remainder=True))

    lr = tf.keras.optimizers.schedules.PiecewiseConstantDecay(
        [b * steps for b in cfg["boundaries"]],
        [cfg["base_lr"] * hvd.size() * f for f in (1.0, 0.1, 0.01)])
    model = DualEncoder(vec, cfg["dim"], cfg["temperature_init"])
    trainer = DualEncoderTrainer(model, tf.keras.optimizers.Adam(lr), args.ckpt_dir)

    for epoch in range(args.epochs):
        total = 0.0
        for i, (x, s) in enumerate(ds):
            loss = trainer.step(x, s)
            if epoch == 0 and i == 0:
                hvd.broadcast_variables(model.variables, root_rank=0)
                hvd.broadcast_variables(trainer.opt.variables, root_rank=0)
            total += float(loss)
        avg = hvd.allreduce(tf.constant(total / max(steps, 1)), name="train_loss")
        metrics = trainer.evaluate(va_x, va_s)
        path = trainer.save()
        if hvd.rank() == 0:
            print(f"epoch {epoch} loss {float(avg):.4f} " + " ".join(f"{k}={v:.3f}" for k, v in metrics.items()),
                  f"saved {path}")


if __name__ == "__main__":
    main()
