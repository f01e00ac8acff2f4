"""OLCF hands-on: CIFAR-10 with Horovod and a custom TF2 training loop.

    jsrun -n4 -a1 -g1 -c7 python train.py
"""
import os
import sys

import tensorflow as tf
import horovod.tensorflow as hvd

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import config
from common.data import load_cifar10, worker_dataset
from common.model import make_model

hvd.init()
IS_CHIEF = hvd.rank() == 0

gpus = tf.config.list_physical_devices("GPU")
for g in gpus:
    tf.config.experimental.set_memory_growth(g, True)
if gpus:
    tf.config.set_visible_devices(gpus[hvd.local_rank()], "GPU")

(x_train, y_train), (x_test, y_test) = load_cifar10()
per_worker_batch = config.GLOBAL_BATCH_SIZE // hvd.size()
train_ds = worker_dataset(x_train, y_train, per_worker_batch, hvd.size(), hvd.rank(), training=True)
test_ds = worker_dataset(x_test, y_test, per_worker_batch, hvd.size(), hvd.rank(), training=False)

model = make_model(config.NUM_CLASSES)
loss_fn = tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True)
opt = tf.keras.optimizers.SGD(learning_rate=config.LEARNING_RATE, momentum=config.MOMENTUM)
ckpt = tf.train.Checkpoint(model=model, optimizer=opt)


@tf.function
def train_step(x, y, first_batch):
    with tf.GradientTape() as tape:
        logits = model(x, training=True)
        loss = loss_fn(y, logits)
    tape = hvd.DistributedGradientTape(tape)
    grads = tape.gradient(loss, model.trainable_variables)
    opt.apply_gradients(zip(grads, model.trainable_variables))
    # broadcast after the first step, when the optimizer slots exist
    if first_batch:
        hvd.broadcast_variables(model.variables, root_rank=0)
        hvd.broadcast_variables(opt.variables, root_rank=0)
    return loss


@tf.function
def eval_step(x, y):
    logits = model(x, training=False)
    return tf.reduce_mean(tf.cast(tf.equal(tf.argmax(logits, 1), y), tf.float32))


first = True
for epoch in range(config.EPOCHS):
    losses = []
    for x, y in train_ds:
        losses.append(float(train_step(x, y, first)))
        first = False
    # every worker has the same number of equal-sized test batches, so the mean of the
    # per-worker mean accuracies is the accuracy over the whole (truncated) test set
    accs = [float(eval_step(x, y)) for x, y in test_ds]
    local_acc = sum(accs) / len(accs)
    test_acc = hvd.allreduce(tf.constant(local_acc), op=hvd.Average, name="test_acc")
    train_loss = hvd.allreduce(tf.constant(sum(losses) / len(losses)), op=hvd.Average, name="train_loss")
    if IS_CHIEF:
        print(f"epoch {epoch + 1}: loss {float(train_loss):.4f}  test acc {float(test_acc):.4f}", flush=True)
        ckpt.save(os.path.join(config.CHECKPOINT_DIR, "cifar"))
