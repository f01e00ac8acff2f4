import argparse
import collections
import time

import tensorflow as tf
import horovod.tensorflow as hvd

from gta.env import setup_horovod
from gta.data import load_tiles_and_texts, train_pipeline
from gta.model import GeoTextModel
from gta.losses import gathered_clip_loss
from gta.evaluate import recall_at

parser = argparse.ArgumentParser(description="align satellite tiles with place descriptions")
parser.add_argument("--root", default="/data/geotext")
parser.add_argument("--epochs", type=int, default=15)
parser.add_argument("--batch", type=int, default=128)
parser.add_argument("--lr", type=float, default=3e-4)
parser.add_argument("--ckpt", default="./tf_ckpts")
parser.add_argument("--keep", type=int, default=3)
args = parser.parse_args()

rank, world = setup_horovod()

tiles, texts = load_tiles_and_texts(args.root, "train")
v_tiles, v_texts = load_tiles_and_texts(args.root, "val")
vocab = sorted({w for t in texts for w in t.lower().split()})
dataset = train_pipeline(tiles, texts, args.batch, rank, world)

model = GeoTextModel(vocab)
opt = tf.keras.optimizers.AdamW(learning_rate=args.lr * world, weight_decay=1e-4)

ckpt = tf.train.Checkpoint(model=model, optimizer=opt, epoch=tf.Variable(0))
manager = tf.train.CheckpointManager(ckpt, args.ckpt, max_to_keep=args.keep)
if manager.latest_checkpoint:
    ckpt.restore(manager.latest_checkpoint)


@tf.function
def train_step(x_tile, x_text, first_batch):
    with tf.GradientTape() as tape:
        e_tile, e_text = model((x_tile, x_text), training=True)
        loss = gathered_clip_loss(e_tile, e_text, model.log_temp)
    tape = hvd.DistributedGradientTape(tape)
    grads = tape.gradient(loss, model.trainable_variables)
    opt.apply_gradients(zip(grads, model.trainable_variables))
    if first_batch:
        hvd.broadcast_variables(model.variables, root_rank=0)
        hvd.broadcast_variables(opt.variables, root_rank=0)
    return loss


first = True
for epoch in range(int(ckpt.epoch.numpy()), args.epochs):
    t0, losses = time.time(), []
    for x_tile, x_text in dataset:
        losses.append(train_step(x_tile, x_text, first))
        first = False
    mean_loss = hvd.allreduce(tf.reduce_mean(losses), name="epoch_loss")
    scores = recall_at(model, v_tiles, v_texts)
    ckpt.epoch.assign(epoch + 1)
    path = manager.save()
    if rank == 0:
        print(f"epoch {epoch:02d} loss {mean_loss:.4f} R@1/5/10 "
              f"{scores[1]:.3f}/{scores[5]:.3f}/{scores[10]:.3f} ({time.time() - t0:.0f}s) -> {path}")
