"""Change-detection training loop (Horovod, TF2 GradientTape).

    horovodrun -np 4 python tools/train_change.py --epochs 40
"""
import sys
from pathlib import Path

sys.path.append(str(Path(__file__).resolve().parents[1] / "src"))

import horovod.tensorflow as hvd  # noqa: E402
import keras  # noqa: E402
import tensorflow as tf  # noqa: E402

from satchange.config import get_config  # noqa: E402
from satchange.data.pipeline import build_pairs_dataset  # noqa: E402
from satchange.model import siamese_change_net  # noqa: E402
from satchange.utils import get_logger, is_chief  # noqa: E402


def main():
    cfg = get_config()
    hvd.init()
    gpus = tf.config.list_physical_devices("GPU")
    for g in gpus:
        tf.config.experimental.set_memory_growth(g, True)
    if gpus:
        tf.config.set_visible_devices(gpus[hvd.local_rank()], "GPU")
    log = get_logger()

    train_ds, n_train = build_pairs_dataset(cfg.train_npz, cfg.batch_size)
    val_ds, _ = build_pairs_dataset(cfg.val_npz, cfg.batch_size, training=False)

    model = siamese_change_net(cfg.filters)
    opt = keras.optimizers.Adam(learning_rate=cfg.lr * hvd.size())
    bce = keras.losses.BinaryCrossentropy(from_logits=True)
    ckpt = tf.train.Checkpoint(model=model, optimizer=opt)
    manager = tf.train.CheckpointManager(ckpt, cfg.ckpt_dir, max_to_keep=3)

    @tf.function
    def train_step(before, after, label, first_batch):
        with tf.GradientTape() as tape:
            loss = bce(label, tf.squeeze(model([before, after], training=True), -1))
        tape = hvd.DistributedGradientTape(tape)
        grads = tape.gradient(loss, model.trainable_variables)
        opt.apply_gradients(zip(grads, model.trainable_variables))
        if first_batch:
            hvd.broadcast_variables(model.variables, root_rank=0)
            hvd.broadcast_variables(opt.variables, root_rank=0)
        return loss

    first = True
    for epoch in range(cfg.epochs):
        for before, after, label in train_ds:
            loss = train_step(before, after, label, tf.constant(first))
            first = False

        hits = tf.zeros(2)
        for before, after, label in val_ds:
            pred = tf.cast(tf.squeeze(model([before, after]), -1) > 0, tf.float32)
            hits += tf.stack([tf.reduce_sum(tf.cast(pred == label, tf.float32)), tf.cast(tf.size(label), tf.float32)])
        hits = hvd.allreduce(hits, op=hvd.Sum)
        if is_chief():
            log.info("epoch %d loss %.4f val acc %.4f (%d train pairs)", epoch, float(loss),
                     float(hits[0] / hits[1]), n_train)
            manager.save()


if __name__ == "__main__":
    main()
