"""Elastic Horovod training of a convolutional climate emulator (custom GradientTape loop).

    horovodrun -np 8 --min-np 2 --max-np 32 --host-discovery-script ./hosts.sh python train.py
"""
import argparse
import os

import tensorflow as tf
import horovod.tensorflow as hvd

from climemu.data import FieldArchive
from climemu.metrics import global_rmse, weighted_sse
from climemu.model import conv_emulator

parser = argparse.ArgumentParser()
parser.add_argument("--archive", default="data/cmip6_emulator.npz")
parser.add_argument("--out", default="runs/emulator")
parser.add_argument("--resume", default="")
parser.add_argument("--epochs", type=int, default=60)
parser.add_argument("--batch-size", type=int, default=8)
parser.add_argument("--lr", type=float, default=2e-4)
parser.add_argument("--val-years", type=int, default=10)
parser.add_argument("--commit-every", type=int, default=50)
args = parser.parse_args()

hvd.init()
for gpu in tf.config.list_physical_devices("GPU"):
    tf.config.experimental.set_memory_growth(gpu, True)
gpus = tf.config.list_physical_devices("GPU")
if gpus:
    tf.config.set_visible_devices(gpus[hvd.local_rank()], "GPU")

data = FieldArchive(args.archive)
lat_w = tf.constant(data.area_weights())
n_val = 12 * args.val_years
train_idx, val_idx = range(0, data.n - n_val), range(data.n - n_val, data.n)

_, H, W, C = data.x.shape
model = conv_emulator(H, W, C)
opt = tf.keras.optimizers.Adam(learning_rate=args.lr * hvd.size())
opt.build(model.trainable_variables)

start_epoch = 0
if args.resume and hvd.rank() == 0:
    model.load_weights(args.resume)
    start_epoch = int(os.path.basename(args.resume).split("_")[1].split(".")[0]) + 1


@tf.function
def train_step(x, y):
    with tf.GradientTape() as tape:
        pred = model(x, training=True)
        w = lat_w[None, :, None]
        loss = tf.reduce_mean(w * tf.square(pred - y))
    tape = hvd.DistributedGradientTape(tape)
    grads = tape.gradient(loss, model.trainable_variables)
    opt.apply_gradients(zip(grads, model.trainable_variables))
    return loss


def validate():
    totals = tf.zeros(2)
    for x, y in data.dataset(val_idx, 16, hvd.size(), hvd.rank(), 0, train=False):
        totals += weighted_sse(model(x, training=False), y, lat_w)
    return global_rmse(totals)


def on_state_reset():
    opt.learning_rate.assign(args.lr * hvd.size())


state = hvd.elastic.TensorFlowKerasState(model, opt, epoch=start_epoch, batch=0)
state.register_reset_callbacks([on_state_reset])


@hvd.elastic.run
def train(state):
    while state.epoch < args.epochs:
        # rebuilt every epoch (and after every reset) for the current rank / size
        ds = data.dataset(train_idx, args.batch_size, hvd.size(), hvd.rank(), state.epoch, train=True)
        # equal number of steps on every worker
        steps = len(train_idx) // hvd.size() // args.batch_size
        for x, y in ds.skip(state.batch).take(steps - state.batch):
            train_step(x, y)
            state.batch += 1
            if state.batch % args.commit_every == 0:
                state.commit()
        rmse = validate()
        if hvd.rank() == 0:
            print(f"epoch {state.epoch}: val RMSE {rmse:.4f} K on {hvd.size()} workers", flush=True)
            os.makedirs(args.out, exist_ok=True)
            model.save_weights(os.path.join(args.out, f"epoch_{state.epoch:03d}.weights.h5"))
        state.epoch += 1
        state.batch = 0
        state.commit()


train(state)
