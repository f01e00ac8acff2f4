"""ECG arrhythmia classification: train a large 1D-CNN teacher, then distill it into a tiny
student that fits on the wearable.  Both stages run in one Horovod job (custom tape loops).

    horovodrun -np 4 python distill_tape.py --data /data/ecg/mitbih_beats.npz
"""
import argparse
import os

import tensorflow as tf
import horovod.tensorflow as hvd

from ecgkd.data import load_split, to_dataset
from ecgkd.models import student_net, teacher_net
from ecgkd.steps import make_student_step, make_teacher_step
from ecgkd.utils import RankZeroLogger, sync_after_first_step

p = argparse.ArgumentParser()
p.add_argument("--data", required=True)
p.add_argument("--batch", type=int, default=128)
p.add_argument("--teacher-epochs", type=int, default=15)
p.add_argument("--student-epochs", type=int, default=25)
p.add_argument("--lr", type=float, default=1e-3)
p.add_argument("--temperature", type=float, default=3.0)
p.add_argument("--ckpt-dir", default="ckpt")
args = p.parse_args()

hvd.init()
gpus = tf.config.list_physical_devices("GPU")
for g in gpus:
    tf.config.experimental.set_memory_growth(g, True)
if gpus:
    tf.config.set_visible_devices(gpus[hvd.local_rank()], "GPU")

log = RankZeroLogger("ecg-kd")
(x_tr, y_tr), (x_te, y_te) = load_split(args.data)
train_ds = to_dataset(x_tr, y_tr, args.batch, training=True)
test_ds = to_dataset(x_te, y_te, 512, training=False)
n_test_local = sum(int(tf.shape(yb)[0]) for _, yb in test_ds)


def evaluate(model):
    correct = tf.constant(0.0)
    for xb, yb in test_ds:
        pred = tf.argmax(model(xb, training=False), axis=-1, output_type=tf.int32)
        correct += tf.reduce_sum(tf.cast(tf.equal(pred, yb), tf.float32))
    correct = hvd.allreduce(correct, op=hvd.Sum)
    return float(correct) / n_test_local


# ---------------- stage 1: teacher ----------------
teacher = teacher_net(x_tr.shape[1], n_classes=5)
t_opt = tf.keras.optimizers.Adam(args.lr * hvd.size())
t_step = make_teacher_step(teacher, t_opt)
for epoch in range(args.teacher_epochs):
    for i, (xb, yb) in enumerate(train_ds):
        loss = t_step(xb, yb)
        if epoch == 0 and i == 0:
            sync_after_first_step(teacher, t_opt)
    log(f"teacher epoch {epoch} loss {float(loss):.4f} acc {evaluate(teacher):.4f}")

# ---------------- stage 2: student ----------------
student = student_net(x_tr.shape[1], n_classes=5)
s_opt = tf.keras.optimizers.Adam(args.lr * hvd.size())
s_step = make_student_step(student, teacher, s_opt, args.temperature)
for epoch in range(args.student_epochs):
    for i, (xb, yb) in enumerate(train_ds):
        loss = s_step(xb, yb)
        if epoch == 0 and i == 0:
            sync_after_first_step(student, s_opt)
    acc = evaluate(student)
    log(f"student epoch {epoch} loss {float(loss):.4f} acc {acc:.4f}")
    if hvd.rank() == 0:
        os.makedirs(args.ckpt_dir, exist_ok=True)
        student.save_weights(os.path.join(args.ckpt_dir, f"student_{epoch:03d}.weights.h5"))
