"""Line-level HTR for archival page scans, TF2 GradientTape + Horovod.

The global batch (--global-batch) is fixed and split over the workers, so --lr is the lr for that batch.
"""
import argparse

from htrtf.env import init_worker

RANK, SIZE = init_worker()

import tensorflow as tf  # noqa: E402
import keras  # noqa: E402
import horovod.tensorflow as hvd  # noqa: E402

from htrtf.ckpt import RankZeroCheckpointer  # noqa: E402
from htrtf.ctc import char_errors, ctc_loss  # noqa: E402
from htrtf.data import line_dataset, read_lines, worker_slice  # noqa: E402
from htrtf.model import build_htr  # noqa: E402


def parse():
    ap = argparse.ArgumentParser()
    ap.add_argument("--train-list", default="exports/train.lst")
    ap.add_argument("--val-list", default="exports/val.lst")
    ap.add_argument("--global-batch", type=int, default=128)
    ap.add_argument("--lr", type=float, default=3e-4)
    ap.add_argument("--epochs", type=int, default=50)
    ap.add_argument("--ckpt-dir", default="ckpt/page_htr")
    return ap.parse_args()


def main(args):
    train_rows, val_rows = read_lines(args.train_list), read_lines(args.val_list)
    charset = sorted({c for _, t in train_rows + val_rows for c in t})
    per_worker = args.global_batch // SIZE
    train_ds = line_dataset(worker_slice(train_rows, RANK, SIZE), charset, per_worker, training=True)
    val_ds = line_dataset(worker_slice(val_rows, RANK, SIZE), charset, per_worker, training=False)

    model = build_htr(len(charset))
    optimizer = keras.optimizers.Adam(args.lr)
    optimizer.build(model.trainable_variables)
    ckpt = RankZeroCheckpointer(args.ckpt_dir, model=model, optimizer=optimizer, epoch=tf.Variable(0))
    ckpt.restore_latest()
    # every worker starts from rank 0's weights and optimizer slots
    hvd.broadcast_variables(model.variables, root_rank=0)
    hvd.broadcast_variables(optimizer.variables, root_rank=0)
    start = int(hvd.broadcast(ckpt.ckpt.epoch, root_rank=0).numpy())

    @tf.function(reduce_retracing=True)
    def step(x, y):
        with tf.GradientTape() as tape:
            loss = ctc_loss(y, model(x, training=True))
        grads = hvd.DistributedGradientTape(tape).gradient(loss, model.trainable_variables)
        optimizer.apply_gradients(zip(grads, model.trainable_variables))
        return loss

    @tf.function
    def val_step(x, y):
        return char_errors(y, model(x, training=False))

    for epoch in range(start, args.epochs):
        losses = [float(step(x, y)) for x, y in train_ds]
        errs = chars = 0.0
        for x, y in val_ds:
            e, c = val_step(x, y)
            errs, chars = errs + float(e), chars + float(c)
        totals = hvd.allgather(tf.constant([[errs, chars]]), name="cer_parts")
        cer = float(tf.reduce_sum(totals[:, 0]) / tf.maximum(tf.reduce_sum(totals[:, 1]), 1.0))
        if RANK == 0:
            print(f"epoch {epoch}: ctc {sum(losses) / max(len(losses), 1):.3f}  val CER {cer:.4f}", flush=True)
        ckpt.ckpt.epoch.assign(epoch + 1)
        ckpt.save(epoch + 1)


if __name__ == "__main__":
    main(parse())
