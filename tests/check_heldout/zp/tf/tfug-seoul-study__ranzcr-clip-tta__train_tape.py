# RANZCR CLiP - catheter and line position (multi-label, 11 classes)
# TF2 custom training loop + Horovod, written for the TFUG Seoul Kaggle study group.
#
#   horovodrun -np 4 python train_tape.py --data /data/ranzcr_384.npz --epochs 15
import argparse
import csv
import os
import time

import numpy as np
import tensorflow as tf
import keras
import horovod.tensorflow as hvd

TARGETS = ["ETT - Abnormal", "ETT - Borderline", "ETT - Normal", "NGT - Abnormal", "NGT - Borderline",
           "NGT - Incompletely Imaged", "NGT - Normal", "CVC - Abnormal", "CVC - Borderline",
           "CVC - Normal", "Swan Ganz Catheter Present"]

parser = argparse.ArgumentParser()
parser.add_argument("--data", default="data/ranzcr_384.npz")
parser.add_argument("--epochs", type=int, default=15)
parser.add_argument("--batch-size", type=int, default=16)
parser.add_argument("--lr", type=float, default=2e-4)
parser.add_argument("--val-patients", type=float, default=0.2)
parser.add_argument("--ckpt", default="checkpoints/ranzcr")
parser.add_argument("--submission", default="submission.csv")
args = parser.parse_args()

hvd.init()
# let TF grow memory instead of grabbing the whole card
for gpu in tf.config.experimental.list_physical_devices("GPU"):
    tf.config.experimental.set_memory_growth(gpu, True)

data = np.load(args.data)
images, labels, patients = data["images"], data["labels"].astype("float32"), data["patient_id"]
test_images, test_uids = data["test_images"], data["test_uid"]

# grouped hold-out: whole patients go to validation
uniq = np.unique(patients)
rng = np.random.default_rng(0)
val_pat = set(rng.choice(uniq, int(len(uniq) * args.val_patients), replace=False).tolist())
is_val = np.array([p in val_pat for p in patients])
x_tr, y_tr, x_va, y_va = images[~is_val], labels[~is_val], images[is_val], labels[is_val]

steps_per_epoch = len(x_tr) // (args.batch_size * hvd.size())


def preprocess(x, y):
    return tf.cast(x, tf.float32) / 255.0, y


def augment(x, y):
    x = tf.image.random_brightness(x, 0.1)
    x = tf.image.random_contrast(x, 0.9, 1.1)
    return x, y


train_ds = (tf.data.Dataset.from_tensor_slices((x_tr, y_tr))
            .shard(hvd.size(), hvd.rank())
            .shuffle(2048, reshuffle_each_iteration=True)
            .map(preprocess).map(augment)
            .repeat().batch(args.batch_size, drop_remainder=True)
            .prefetch(tf.data.AUTOTUNE))
val_ds = (tf.data.Dataset.from_tensor_slices((x_va, y_va))
          .shard(hvd.size(), hvd.rank()).map(preprocess).batch(64))


def build_model(shape, n_out):
    base = keras.applications.MobileNetV2(input_shape=shape, include_top=False, weights=None)
    x = keras.layers.GlobalAveragePooling2D()(base.output)
    return keras.Model(base.input, keras.layers.Dense(n_out)(x))


model = build_model(x_tr.shape[1:], len(TARGETS))
optimizer = keras.optimizers.Adam(learning_rate=args.lr * hvd.size())
loss_fn = keras.losses.BinaryCrossentropy(from_logits=True)


@tf.function
def train_step(x, y, first_batch):
    with tf.GradientTape() as tape:
        logits = model(x, training=True)
        loss = loss_fn(y, logits)
        # average the loss over workers so every worker follows the same objective
        loss = hvd.allreduce(loss)
    grads = tape.gradient(loss, model.trainable_variables)
    optimizer.apply_gradients(zip(grads, model.trainable_variables))
    if first_batch:
        hvd.broadcast_variables(model.variables, root_rank=0)
        hvd.broadcast_variables(optimizer.variables, root_rank=0)
    return loss


def auc_per_class(y_true, y_score):
    out = []
    for k in range(y_true.shape[1]):
        t, s = y_true[:, k].astype(bool), y_score[:, k]
        if t.all() or (~t).all():
            continue
        r = np.empty(len(s))
        r[np.argsort(s)] = np.arange(1, len(s) + 1)
        out.append((r[t].sum() - t.sum() * (t.sum() + 1) / 2) / (t.sum() * (~t).sum()))
    return float(np.mean(out)) if out else float("nan")


def validate():
    preds, gts = [], []
    for x, y in val_ds:
        preds.append(tf.sigmoid(model(x, training=False)))
        gts.append(y)
    p = hvd.allgather(tf.concat(preds, 0)).numpy()
    t = hvd.allgather(tf.concat(gts, 0)).numpy()
    return auc_per_class(t, p)


best = 0.0
it = iter(train_ds)
for epoch in range(args.epochs):
    t0 = time.time()
    for step in range(steps_per_epoch):
        x, y = next(it)
        loss = train_step(x, y, tf.constant(epoch == 0 and step == 0))
    auc = validate()
    if hvd.rank() == 0:
        print(f"epoch {epoch + 1}/{args.epochs} loss {float(loss):.4f} val mean AUC {auc:.4f} "
              f"[{time.time() - t0:.0f}s]", flush=True)
        if auc > best:
            best = auc
            os.makedirs(args.ckpt, exist_ok=True)
            model.save_weights(os.path.join(args.ckpt, "best.weights.h5"))

# TTA (identity + horizontal flip) on the chief, then the submission file
if hvd.rank() == 0:
    model.load_weights(os.path.join(args.ckpt, "best.weights.h5"))
    xt = test_images.astype("float32") / 255.0
    p = tf.sigmoid(model.predict(xt, batch_size=64, verbose=0)).numpy()
    p += tf.sigmoid(model.predict(xt[:, :, ::-1], batch_size=64, verbose=0)).numpy()
    with open(args.submission, "w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(["StudyInstanceUID"] + TARGETS)
        for uid, row in zip(test_uids, p / 2):
            w.writerow([uid] + [f"{v:.5f}" for v in row])
