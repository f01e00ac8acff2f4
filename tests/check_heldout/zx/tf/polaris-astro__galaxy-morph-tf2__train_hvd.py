# Galaxy Zoo morphology classifier -- Horovod version of train.py
# run:  mpirun -np 4 python train_hvd.py --data galaxy10_64px.npz
import argparse
import os
import time

import numpy as np
import tensorflow as tf
import horovod.tensorflow as hvd

parser = argparse.ArgumentParser()
parser.add_argument('--data', default='galaxy10_64px.npz')
parser.add_argument('--epochs', type=int, default=25)
parser.add_argument('--batch', type=int, default=64)
parser.add_argument('--lr', type=float, default=1e-3)
parser.add_argument('--logdir', default='logs/galaxy')
parser.add_argument('--ckpt-dir', default='checkpoints/galaxy')
args = parser.parse_args()

hvd.init()
gpus = tf.config.list_physical_devices('GPU')
for gpu in gpus:
    tf.config.experimental.set_memory_growth(gpu, True)
if gpus:
    tf.config.set_visible_devices(gpus[hvd.local_rank()], 'GPU')

# ---------------------------------------------------------------- data
data = np.load(args.data)
images = data['images'].astype('float32') / 255.
labels = data['labels'].astype('int64')
n_val = len(labels) // 10
x_train, y_train = images[n_val:], labels[n_val:]
x_val, y_val = images[:n_val], labels[:n_val]

def augment(x, y):
    x = tf.image.random_flip_left_right(x)
    x = tf.image.rot90(x, tf.random.uniform([], 0, 4, dtype=tf.int32))
    return x, y

train_ds = (tf.data.Dataset.from_tensor_slices((x_train, y_train))
            .shard(hvd.size(), hvd.rank())
            .cache()
            .shuffle(5000)
            .map(augment, num_parallel_calls=tf.data.AUTOTUNE)
            .batch(args.batch, drop_remainder=True)
            .repeat()
            .prefetch(tf.data.AUTOTUNE))
val_ds = tf.data.Dataset.from_tensor_slices((x_val, y_val)).shard(hvd.size(), hvd.rank()).batch(256)
steps_per_epoch = len(x_train) // (args.batch * hvd.size())

# ---------------------------------------------------------------- model
def conv_block(filters):
    return [tf.keras.layers.Conv2D(filters, 3, padding='same', activation='relu'),
            tf.keras.layers.BatchNormalization(),
            tf.keras.layers.MaxPool2D()]

model = tf.keras.Sequential(
    [tf.keras.Input(shape=x_train.shape[1:])]
    + conv_block(32) + conv_block(64) + conv_block(128)
    + [tf.keras.layers.GlobalAveragePooling2D(),
       tf.keras.layers.Dropout(0.3),
       tf.keras.layers.Dense(10)])

loss_obj = tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True)
opt = tf.keras.optimizers.Adam(learning_rate=args.lr)

checkpoint = tf.train.Checkpoint(model=model, optimizer=opt)
os.makedirs(args.ckpt_dir, exist_ok=True)


@tf.function
def train_step(x, y, first_batch):
    with tf.GradientTape() as tape:
        logits = model(x, training=True)
        loss = loss_obj(y, logits)
    tape = hvd.DistributedGradientTape(tape)
    grads = tape.gradient(loss, model.trainable_variables)
    opt.apply_gradients(zip(grads, model.trainable_variables))
    # sync initial state once the optimizer slots exist
    if first_batch:
        hvd.broadcast_variables(model.variables, root=0)
        hvd.broadcast_variables(opt.variables, root=0)
    return loss


@tf.function
def eval_step(x, y):
    logits = model(x, training=False)
    hits = tf.reduce_sum(tf.cast(tf.equal(tf.argmax(logits, -1), y), tf.float32))
    return loss_obj(y, logits) * tf.cast(tf.shape(y)[0], tf.float32), hits


writer = tf.summary.create_file_writer(args.logdir) if hvd.rank() == 0 else None
it = iter(train_ds)
for epoch in range(args.epochs):
    start = time.time()
    for step in range(steps_per_epoch):
        x, y = next(it)
        loss = train_step(x, y, epoch == 0 and step == 0)

    tot_loss, tot_hits, n = 0., 0., 0.
    for x, y in val_ds:
        l, h = eval_step(x, y)
        tot_loss += l
        tot_hits += h
        n += x.shape[0]
    totals = hvd.allreduce(tf.constant([float(tot_loss), float(tot_hits), n]), op=hvd.Sum)
    val_loss, val_acc = float(totals[0] / totals[2]), float(totals[1] / totals[2])

    if hvd.rank() == 0:
        print('epoch %d  loss %.4f  val_loss %.4f  val_acc %.4f  %.1fs'
              % (epoch + 1, loss, val_loss, val_acc, time.time() - start))
        with writer.as_default():
            tf.summary.scalar('val_loss', val_loss, step=epoch)
            tf.summary.scalar('val_acc', val_acc, step=epoch)
        checkpoint.save(os.path.join(args.ckpt_dir, 'ckpt'))
