# HAR (UCI smartphones) 1D-CNN, custom training loop.
# History: TF 1.4 graph code (tf.contrib.layers + hvd.DistributedOptimizer), rewritten for TF 2
# eager + Keras 3 in 2024. Some compat.v1 logging calls are left from the old script.
import argparse
import os
import time

import numpy as np
import tensorflow as tf
import keras
import horovod.tensorflow as hvd

tf.compat.v1.logging.set_verbosity(tf.compat.v1.logging.ERROR)

ap = argparse.ArgumentParser()
ap.add_argument('--data-dir', default='data/uci_har')
ap.add_argument('--batch-size', type=int, default=64)
ap.add_argument('--lr', type=float, default=1e-3)
ap.add_argument('--epochs', type=int, default=25)
ap.add_argument('--ckpt-dir', default='./checkpoints_har')
ap.add_argument('--resume', action='store_true')
args = ap.parse_args()

hvd.init()
gpus = tf.config.experimental.list_physical_devices('GPU')
for gpu in gpus:
    tf.config.experimental.set_memory_growth(gpu, True)
if gpus:
    tf.config.experimental.set_visible_devices(gpus[hvd.local_rank()], 'GPU')


def load(split):
    x = np.load(os.path.join(args.data_dir, 'X_%s.npy' % split)).astype(np.float32)   # (n, 128, 9)
    y = np.load(os.path.join(args.data_dir, 'y_%s.npy' % split)).astype(np.int64) - 1  # labels 1..6
    return x, y


x_train, y_train = load('train')
x_test, y_test = load('test')

# Horovod: every worker gets a different part of the training and test sets
train_ds = (tf.data.Dataset.from_tensor_slices((x_train, y_train))
            .shard(hvd.size(), hvd.rank())
            .shuffle(4096)
            .batch(args.batch_size, drop_remainder=True))
# same number of steps on every worker (the shards can differ by one sample)
steps_per_epoch = (len(x_train) // hvd.size()) // args.batch_size
test_ds = (tf.data.Dataset.from_tensor_slices((x_test, y_test))
           .shard(hvd.size(), hvd.rank())
           .batch(512))

model = keras.Sequential([
    keras.Input((128, 9)),
    keras.layers.Conv1D(64, 5, activation='relu'),
    keras.layers.Conv1D(64, 5, activation='relu'),
    keras.layers.MaxPooling1D(2),
    keras.layers.Conv1D(128, 3, activation='relu'),
    keras.layers.GlobalAveragePooling1D(),
    keras.layers.Dropout(0.5),
    keras.layers.Dense(6),
])
loss_obj = keras.losses.SparseCategoricalCrossentropy(from_logits=True)
# Horovod: scale the learning rate with the number of workers
opt = keras.optimizers.Adam(learning_rate=args.lr * hvd.size())

checkpoint = tf.train.Checkpoint(model=model, optimizer=opt)
start_epoch = tf.Variable(0, dtype=tf.int64)
checkpoint.epoch = start_epoch
if args.resume:
    # every worker restores the same files; the first-batch broadcast below keeps them equal anyway
    latest = tf.train.latest_checkpoint(args.ckpt_dir)
    if latest:
        checkpoint.restore(latest)


@tf.function
def training_step(images, labels, first_batch):
    with tf.GradientTape() as tape:
        logits = model(images, training=True)
        loss_value = loss_obj(labels, logits)

    # Horovod: add Horovod Distributed GradientTape.
    tape = hvd.DistributedGradientTape(tape)
    grads = tape.gradient(loss_value, model.trainable_variables)
    opt.apply_gradients(zip(grads, model.trainable_variables))

    # Horovod: broadcast initial variable states from rank 0 to all other processes.
    # This is done after the first gradient step so the optimizer slots exist.
    if first_batch:
        hvd.broadcast_variables(model.variables, root_rank=0)
        hvd.broadcast_variables(opt.variables, root_rank=0)
    return loss_value


def evaluate():
    correct = tf.constant(0.0)
    total = tf.constant(0.0)
    loss_sum = tf.constant(0.0)
    for images, labels in test_ds:
        logits = model(images, training=False)
        loss_sum += loss_obj(labels, logits) * tf.cast(tf.shape(labels)[0], tf.float32)
        correct += tf.reduce_sum(tf.cast(tf.equal(tf.argmax(logits, -1), labels), tf.float32))
        total += tf.cast(tf.shape(labels)[0], tf.float32)
    sums = hvd.allreduce(tf.stack([loss_sum, correct, total]), op=hvd.Sum, name='eval_sums')
    return (sums[0] / sums[2]).numpy(), (sums[1] / sums[2]).numpy()


first = True
for epoch in range(int(start_epoch.numpy()), args.epochs):
    t0 = time.time()
    for batch, (images, labels) in enumerate(train_ds.take(steps_per_epoch)):
        loss_value = training_step(images, labels, first)
        first = False
    val_loss, val_acc = evaluate()
    start_epoch.assign(epoch + 1)
    if hvd.rank() == 0:
        print('epoch %d  train loss (rank 0, last batch) %.4f  val loss %.4f  val acc %.4f  %.1fs'
              % (epoch, loss_value, val_loss, val_acc, time.time() - t0))
        checkpoint.save(os.path.join(args.ckpt_dir, 'ckpt'))
