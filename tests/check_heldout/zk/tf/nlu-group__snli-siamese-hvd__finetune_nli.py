"""Sentence-pair NLI (SNLI / MultiNLI) with a shared BiGRU encoder, TF2 GradientTape + Horovod.

    horovodrun -np 4 python finetune_nli.py --data data/snli_tok.npz --epochs 5 [--amp]
"""
import argparse
import logging

import tensorflow as tf
import keras
import horovod.tensorflow as hvd

from nli.data import load_pairs, pair_dataset
from nli.model import SiameseNLI
from nli.train_utils import WarmupCosine, evaluate, RankZeroCheckpoint

log = logging.getLogger("nli")


def parse_args():
    p = argparse.ArgumentParser()
    p.add_argument("--data", default="data/snli_tok.npz")
    p.add_argument("--epochs", type=int, default=5)
    p.add_argument("--batch-size", type=int, default=64)
    p.add_argument("--base-lr", type=float, default=1e-3)
    p.add_argument("--warmup-steps", type=int, default=1000)
    p.add_argument("--amp", action="store_true")
    p.add_argument("--ckpt-dir", default="ckpt/nli")
    return p.parse_args()


def main():
    args = parse_args()
    hvd.init()
    logging.basicConfig(level=logging.INFO if hvd.rank() == 0 else logging.WARN)
    gpus = tf.config.list_physical_devices("GPU")
    for g in gpus:
        tf.config.experimental.set_memory_growth(g, True)
    if gpus:
        tf.config.set_visible_devices(gpus[hvd.local_rank()], "GPU")
    if args.amp:
        keras.mixed_precision.set_global_policy("mixed_float16")

    data = load_pairs(args.data)
    train_ds = pair_dataset(data["train"], args.batch_size, hvd.size(), hvd.rank(), shuffle=True)
    dev_ds = pair_dataset(data["dev"], 256, hvd.size(), hvd.rank(), shuffle=False)
    steps_per_epoch = len(data["train"][2]) // (args.batch_size * hvd.size())

    model = SiameseNLI(vocab_size=int(data["vocab_size"]))
    schedule = WarmupCosine(args.base_lr * hvd.size(), args.warmup_steps, steps_per_epoch * args.epochs)
    optimizer = keras.optimizers.Adam(schedule)
    if args.amp:
        optimizer = keras.mixed_precision.LossScaleOptimizer(optimizer)
    loss_fn = keras.losses.SparseCategoricalCrossentropy(from_logits=True)
    ckpt = RankZeroCheckpoint(args.ckpt_dir, model=model, optimizer=optimizer)

    @tf.function
    def train_step(p, h, y):
        with tf.GradientTape() as tape:
            logits = model(p, h, training=True)
            loss = loss_fn(y, tf.cast(logits, tf.float32))
            scaled = optimizer.scale_loss(loss) if args.amp else loss
        tape = hvd.DistributedGradientTape(tape, compression=hvd.Compression.fp16)
        grads = tape.gradient(scaled, model.trainable_variables)
        optimizer.apply_gradients(zip(grads, model.trainable_variables))
        return loss

    step = 0
    for epoch in range(args.epochs):
        for p, h, y in train_ds.take(steps_per_epoch):
            loss = train_step(p, h, y)
            if step == 0:
                hvd.broadcast_variables(model.variables, root=0)
                hvd.broadcast_variables(optimizer.variables, root=0)
            step += 1
            if step % 200 == 0:
                log.info("epoch %d step %d loss %.4f", epoch, step, float(loss))
        acc = evaluate(model, dev_ds)
        log.info("epoch %d dev accuracy %.4f", epoch, acc)
        ckpt.save(epoch)


if __name__ == "__main__":
    main()
