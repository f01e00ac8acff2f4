# Knowledge distillation: a frozen EfficientNet teacher -> small CNN student.
# Horovod version of distill.py (single GPU).  Usage:
#   mpirun -np 8 python 04_distill_teacher_student.py --data /data/flowers --teacher teacher.keras
import argparse
import os
import time

import tensorflow as tf
import horovod.tensorflow as hvd

ap = argparse.ArgumentParser()
ap.add_argument("--data", required=True)
ap.add_argument("--teacher", required=True)
ap.add_argument("--img", type=int, default=160)
ap.add_argument("--bs", type=int, default=64)
ap.add_argument("--epochs", type=int, default=40)
ap.add_argument("--lr", type=float, default=1e-3)
ap.add_argument("--temperature", type=float, default=4.0)
ap.add_argument("--alpha", type=float, default=0.7)
ap.add_argument("--save-dir", default="student_ckpt")
ap.add_argument("--patience", type=int, default=6)
args = ap.parse_args()

hvd.init()
gpus = tf.config.list_physical_devices("GPU")
for g in gpus:
    tf.config.experimental.set_memory_growth(g, True)
if gpus:
    tf.config.set_visible_devices(gpus[hvd.local_rank()], "GPU")

verbose = hvd.rank() == 0

train_ds = tf.keras.utils.image_dataset_from_directory(
    os.path.join(args.data, "train"), image_size=(args.img, args.img),
    batch_size=args.bs, shuffle=True, seed=17)
val_ds = tf.keras.utils.image_dataset_from_directory(
    os.path.join(args.data, "val"), image_size=(args.img, args.img),
    batch_size=args.bs, shuffle=False)
num_classes = len(train_ds.class_names)

rescale = tf.keras.layers.Rescaling(1.0 / 255)
train_ds = train_ds.map(lambda x, y: (rescale(x), y)).prefetch(tf.data.AUTOTUNE)
val_ds = val_ds.map(lambda x, y: (rescale(x), y)).cache().prefetch(tf.data.AUTOTUNE)

teacher = tf.keras.models.load_model(args.teacher)
teacher.trainable = False

student = tf.keras.Sequential([
    tf.keras.layers.Input((args.img, args.img, 3)),
    tf.keras.layers.Conv2D(32, 3, strides=2, activation="relu"),
    tf.keras.layers.BatchNormalization(),
    tf.keras.layers.Conv2D(64, 3, strides=2, activation="relu"),
    tf.keras.layers.BatchNormalization(),
    tf.keras.layers.Conv2D(128, 3, strides=2, activation="relu"),
    tf.keras.layers.GlobalAveragePooling2D(),
    tf.keras.layers.Dropout(0.2),
    tf.keras.layers.Dense(num_classes),
], name="student")

opt = tf.keras.optimizers.Adam(learning_rate=args.lr * hvd.size())
ce = tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True)
kl = tf.keras.losses.KLDivergence()
T = args.temperature


@tf.function
def distill_step(x, y, first_batch):
    t_logits = teacher(x, training=False)
    with tf.GradientTape() as tape:
        s_logits = student(x, training=True)
        hard = ce(y, s_logits)
        soft = kl(tf.nn.softmax(t_logits / T), tf.nn.softmax(s_logits / T)) * (T * T)
        loss = args.alpha * soft + (1.0 - args.alpha) * hard
    tape = hvd.DistributedGradientTape(tape)
    grads = tape.gradient(loss, student.trainable_variables)
    opt.apply_gradients(zip(grads, student.trainable_variables))
    if first_batch:
        hvd.broadcast_variables(student.variables, root_rank=0)
        hvd.broadcast_variables(opt.variables(), root_rank=0)
    return loss


class Accuracy:
    """running accuracy that can be synchronised between workers"""

    def __init__(self):
        self.correct = 0.0
        self.count = 0.0

    def update(self, logits, y):
        pred = tf.argmax(logits, axis=-1, output_type=tf.int32)
        self.correct += float(tf.reduce_sum(tf.cast(pred == tf.cast(y, tf.int32), tf.float32)))
        self.count += float(tf.shape(y)[0])

    def value(self):
        return self.correct / max(self.count, 1.0)


def evaluate():
    acc = Accuracy()
    for x, y in val_ds:
        acc.update(student(x, training=False), y)
    return acc.value()


best, bad_epochs = 0.0, 0
os.makedirs(args.save_dir, exist_ok=True)
first = True
for epoch in range(args.epochs):
    start = time.time()
    losses = []
    for x, y in train_ds:
        losses.append(distill_step(x, y, first))
        first = False
    epoch_loss = hvd.allreduce(tf.reduce_mean(tf.stack(losses)), name="epoch_loss")
    val_acc = evaluate()   # full val set on every worker -> same number everywhere

    if verbose:
        print(f"[{epoch:03d}] loss {epoch_loss.numpy():.4f}  val_acc {val_acc:.4f}  "
              f"{time.time() - start:.0f}s")

    student.save_weights(os.path.join(args.save_dir, "last.weights.h5"))
    if val_acc > best:
        best, bad_epochs = val_acc, 0
        student.save_weights(os.path.join(args.save_dir, "best.weights.h5"))
    else:
        bad_epochs += 1
        if bad_epochs >= args.patience:
            if verbose:
                print("early stopping, best val_acc", best)
            break

hvd.join()
