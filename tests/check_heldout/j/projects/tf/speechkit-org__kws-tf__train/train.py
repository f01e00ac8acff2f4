"""Keyword spotting (Speech Commands v2, 12 classes) with a custom Horovod loop.

    horovodrun -np 4 python train.py --data ~/data/speech_commands_v0.02
    horovodrun -np 16 -H n1:4,n2:4,n3:4,n4:4 python train.py --use-adasum
"""
import argparse
import time

import tensorflow as tf

from kws import LABELS
from kws.checkpointing import RankZeroCheckpointer
from kws.features import make_split
from kws.hvd_compat import hvd, init_horovod, is_chief
from kws.metrics import StreamingAccuracy
from kws.model import ds_cnn

ap = argparse.ArgumentParser()
ap.add_argument("--data", default="data/speech_commands_v0.02")
ap.add_argument("--epochs", type=int, default=30)
ap.add_argument("--batch-size", type=int, default=100)
ap.add_argument("--lr", type=float, default=5e-4)
ap.add_argument("--use-adasum", action="store_true", default=False)
ap.add_argument("--fp16-allreduce", action="store_true", default=False)
ap.add_argument("--cpu-threads", type=int, default=2)
ap.add_argument("--ckpt-dir", default="ckpt/ds_cnn")
args = ap.parse_args()

init_horovod(cpu_threads=args.cpu_threads)

train_ds, n_train = make_split(args.data, "training_list.txt", args.batch_size, hvd.size(), hvd.rank(), True)
heldout, _ = make_split(args.data, "testing_list.txt", args.batch_size, hvd.size(), hvd.rank(), False)
steps_per_epoch = n_train // (args.batch_size * hvd.size())

model = ds_cnn(len(LABELS))
if args.use_adasum:
    # Adasum keeps one worker's step size; with NCCL the GPUs of a node are summed first
    lr_scale = hvd.local_size() if hvd.nccl_built() and tf.config.list_physical_devices("GPU") else 1
else:
    lr_scale = hvd.size()  # Average: the lr follows the global batch
rmsprop = tf.keras.optimizers.RMSprop(learning_rate=args.lr * lr_scale)
xent = tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True)
reduce_op = hvd.Adasum if args.use_adasum else hvd.Average
compression = hvd.Compression.fp16 if args.fp16_allreduce else hvd.Compression.none
saver = RankZeroCheckpointer(args.ckpt_dir, model=model, optimizer=rmsprop)
train_acc, heldout_acc = StreamingAccuracy("train"), StreamingAccuracy("heldout")


@tf.function
def training_step(feats, labels, first_batch):
    with tf.GradientTape() as tape:
        logits = model(feats, training=True)
        loss = xent(labels, logits)
    tape = hvd.DistributedGradientTape(tape, compression=compression, op=reduce_op)
    grads = tape.gradient(loss, model.trainable_variables)
    rmsprop.apply_gradients(zip(grads, model.trainable_variables))
    # after the first update the optimizer slots exist too, so both can be broadcast
    if first_batch:
        hvd.broadcast_variables(model.variables, root_rank=0)
        hvd.broadcast_variables(rmsprop.variables, root_rank=0)
    return logits, loss


@tf.function
def eval_step(feats, labels):
    logits = model(feats, training=False)
    return logits, xent(labels, logits)


first = True
for epoch in range(args.epochs):
    t0 = time.time()
    train_acc.reset()
    for feats, labels in train_ds.take(steps_per_epoch):
        logits, loss = training_step(feats, labels, first)
        first = False
        train_acc.update(labels, logits, loss)
    heldout_acc.reset()
    for feats, labels in heldout:
        heldout_acc.update(labels, *eval_step(feats, labels))
    tr, ho = train_acc.result_global(), heldout_acc.result_global()
    if is_chief():
        print(f"epoch {epoch + 1:2d}/{args.epochs} {time.time() - t0:4.0f}s  "
              f"train {tr['loss']:.3f}/{tr['acc']:.3f}  heldout {ho['loss']:.3f}/{ho['acc']:.3f}", flush=True)
    saver.save(epoch + 1)
