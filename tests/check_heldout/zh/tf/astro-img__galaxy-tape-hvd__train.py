"""Galaxy Zoo 2 vote-fraction regression, TF2 GradientTape loop with horovod.

mpirun -np 8 python train.py --data /lustre/gz2/tfrecords --epochs 30
"""
import argparse
import time

import tensorflow as tf
import horovod.tensorflow as hvd

from galzoo.ckpt import CheckpointSaver
from galzoo.data import galaxy_dataset
from galzoo.metrics import GlobalRMSE
from galzoo.model import GalaxyNet

parser = argparse.ArgumentParser()
parser.add_argument('--data', default='/lustre/gz2/tfrecords')
parser.add_argument('--epochs', type=int, default=30)
parser.add_argument('--batch-size', type=int, default=64)
parser.add_argument('--img-size', type=int, default=128)
parser.add_argument('--lr', type=float, default=1e-3)
parser.add_argument('--train-examples', type=int, default=55000)
parser.add_argument('--ckpt-dir', default='./ckpt_gz2')
args = parser.parse_args()

hvd.init()
gpus = tf.config.experimental.list_physical_devices('GPU')
for gpu in gpus:
    tf.config.experimental.set_memory_growth(gpu, True)
if gpus:
    tf.config.experimental.set_visible_devices(gpus[hvd.local_rank()], 'GPU')

train_ds = galaxy_dataset(f'{args.data}/train-*', args.batch_size, args.img_size,
                          hvd.size(), hvd.rank(), training=True)
val_ds = galaxy_dataset(f'{args.data}/valid-*', args.batch_size, args.img_size,
                        hvd.size(), hvd.rank(), training=False)
steps_per_epoch = args.train_examples // (args.batch_size * hvd.size())

model = GalaxyNet()
optimizer = tf.keras.optimizers.Adam(learning_rate=args.lr * hvd.size())
loss_fn = tf.keras.losses.MeanSquaredError()
saver = CheckpointSaver(model, optimizer, args.ckpt_dir)


@tf.function
def train_step(images, votes):
    with tf.GradientTape() as tape:
        pred = model(images, training=True)
        loss = loss_fn(votes, pred)
    tape = hvd.DistributedGradientTape(tape)
    grads = tape.gradient(loss, model.trainable_variables)
    optimizer.apply_gradients(zip(grads, model.trainable_variables))
    return loss


start_epoch = saver.restore()
rmse = GlobalRMSE()
train_iter = iter(train_ds)
for epoch in range(start_epoch, args.epochs):
    t0 = time.time()
    for step in range(steps_per_epoch):
        images, votes = next(train_iter)
        loss = train_step(images, votes)
        if epoch == start_epoch and step == 0:
            # sync initial state from rank 0 (weights are created by the first step)
            hvd.broadcast_global_variables(0)
        if step % 100 == 0 and hvd.rank() == 0:
            print(f'epoch {epoch} step {step}/{steps_per_epoch} loss {loss.numpy():.5f}')

    rmse.reset()
    for images, votes in val_ds:
        rmse.update(votes, model(images, training=False))
    val_rmse = rmse.result()
    if hvd.rank() == 0:
        print(f'epoch {epoch}: val RMSE {val_rmse:.5f} ({time.time() - t0:.0f}s)')
    saver.save(epoch + 1)
