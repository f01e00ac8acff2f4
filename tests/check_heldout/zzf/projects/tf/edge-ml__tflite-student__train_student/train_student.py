"""Distil a ResNet50V2 CIFAR-100 teacher into a 0.35x depthwise student for TFLite."""
import argparse

import tensorflow as tf
import keras
import horovod.tensorflow as hvd

from student.distributed import global_mean, init_and_pin, sync_initial_state
from student.export import export_tflite
from student.nets import edge_student, teacher_net
from student.pipeline import datasets

GLOBAL_BATCH = 512
parser = argparse.ArgumentParser()
parser.add_argument("--teacher-ckpt", default="gs://edge-ml-models/teachers/r50v2_c100/ckpt-30")
parser.add_argument("--lr", type=float, default=0.1, help="for the global batch of 512")
parser.add_argument("--epochs", type=int, default=60)
parser.add_argument("--temperature", type=float, default=4.0)
parser.add_argument("--workdir", default="work/edge_student")
FLAGS = parser.parse_args()

rank, size = init_and_pin()
train_ds, val_ds = datasets(rank, size, GLOBAL_BATCH // size)

teacher = teacher_net()
tf.train.Checkpoint(model=teacher).restore(FLAGS.teacher_ckpt).expect_partial()
student = edge_student()

steps_per_epoch = 50000 // GLOBAL_BATCH
lr = keras.optimizers.schedules.CosineDecay(FLAGS.lr, FLAGS.epochs * steps_per_epoch, warmup_target=None)
opt = keras.optimizers.SGD(lr, momentum=0.9, nesterov=True)
epoch_var = tf.Variable(0, dtype=tf.int64, trainable=False)
ckpt = tf.train.Checkpoint(student=student, opt=opt, epoch=epoch_var)
manager = tf.train.CheckpointManager(ckpt, f"{FLAGS.workdir}/ckpt", max_to_keep=3)
if rank == 0 and manager.latest_checkpoint:
    ckpt.restore(manager.latest_checkpoint)
start_epoch = int(hvd.broadcast(epoch_var, root_rank=0, name="start_epoch"))


@tf.function
def train_step(x, y, first):
    t_prob = tf.nn.softmax(teacher(x, training=False) / FLAGS.temperature)
    with tf.GradientTape() as tape:
        s_logits = student(x, training=True)
        kd = keras.losses.kl_divergence(t_prob, tf.nn.softmax(s_logits / FLAGS.temperature))
        ce = keras.losses.sparse_categorical_crossentropy(y, s_logits, from_logits=True)
        loss = tf.reduce_mean(0.9 * kd * FLAGS.temperature ** 2 + 0.1 * ce)
    tape = hvd.DistributedGradientTape(tape)
    grads = tape.gradient(loss, student.trainable_variables)
    opt.apply_gradients(zip(grads, student.trainable_variables))
    if first:
        sync_initial_state(student, opt)
    return loss


acc_metric = keras.metrics.SparseCategoricalAccuracy()
first = True
for epoch in range(start_epoch, FLAGS.epochs):
    for x, y in train_ds:
        loss = train_step(x, y, first)
        first = False
    acc_metric.reset_state()
    for x, y in val_ds:
        acc_metric.update_state(y, student(x, training=False))
    val_acc = float(global_mean(acc_metric.result(), "val_acc"))
    epoch_var.assign(epoch + 1)
    if rank == 0:
        print(f"epoch {epoch + 1}/{FLAGS.epochs} loss {float(loss):.4f} val acc {val_acc:.4f}", flush=True)
        manager.save()

if rank == 0:
    print("exported", export_tflite(student, f"{FLAGS.workdir}/export"))
