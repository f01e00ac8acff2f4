"""CTC speech recognizer, TF2 custom loop with horovod and mixed precision.

    horovodrun -np 16 -H n1:8,n2:8 python train_asr.py --preset base
"""
import time

import tensorflow as tf
import keras
import horovod.tensorflow as hvd

from asrkit.config import get_args
from asrkit.dist_utils import init_gpus, mean_over_workers, sum_over_workers
from asrkit.features import train_dataset
from asrkit.model import ctc_model
from asrkit.checkpoints import RankZeroCheckpointer

args = get_args()
init_gpus()
if args.amp:
    keras.mixed_precision.set_global_policy("mixed_float16")

model = ctc_model(args.n_mels, args.hidden, args.layers, args.vocab)
opt = keras.optimizers.Adam(args.lr * hvd.size(), clipnorm=None)
if args.amp:
    opt = keras.mixed_precision.LossScaleOptimizer(opt)
compression = hvd.Compression.fp16 if args.fp16_allreduce else hvd.Compression.none
ckpt = RankZeroCheckpointer(args.exp_dir, model, opt)


def ctc_loss(labels, logits):
    b = tf.shape(logits)[0]
    logit_len = tf.fill([b], tf.shape(logits)[1])
    label_len = tf.fill([b], tf.shape(labels)[1])
    return tf.reduce_mean(tf.nn.ctc_loss(labels, logits, label_len, logit_len,
                                         logits_time_major=False, blank_index=-1))


@tf.function
def train_step(x, y, first_batch):
    with tf.GradientTape() as tape:
        logits = model(x, training=True)
        loss = ctc_loss(y, tf.cast(logits, tf.float32))
        scaled = opt.scale_loss(loss) if args.amp else loss
    tape = hvd.DistributedGradientTape(tape, compression=compression)
    grads = tape.gradient(scaled, model.trainable_variables)
    opt.apply(grads, model.trainable_variables)
    if first_batch:
        hvd.broadcast_variables(model.variables, root_rank=0)
        hvd.broadcast_variables(opt.variables, root_rank=0)
    return loss


t0, losses = time.time(), []
for step, (x, y) in enumerate(train_dataset(args).take(args.steps), start=1):
    loss = train_step(x, y, step == 0)
    losses.append(float(loss))
    if step % args.log_every == 0:
        utt_s = args.log_every * args.batch_size / (time.time() - t0)
        avg = mean_over_workers(sum(losses) / len(losses), "train_loss")
        tot = sum_over_workers(utt_s, "utt_s")
        if hvd.rank() == 0:
            print(f"step {step} ctc {float(avg):.3f} | {utt_s:.1f} utt/s/rank, {float(tot):.1f} utt/s total",
                  flush=True)
        t0, losses = time.time(), []
    if step % args.save_every == 0:
        ckpt.save(step)
