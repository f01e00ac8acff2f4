import argparse
import time

import tensorflow as tf
import keras
import horovod.tensorflow as hvd

from dmltf.data import load_npz, train_pipeline
from dmltf.engine import make_steps
from dmltf.retrieval import recall_at_k

parser = argparse.ArgumentParser(description="semi-hard triplet training (TF2, Horovod)")
parser.add_argument("--data", default="data/sop64.npz")
parser.add_argument("--batch-size", type=int, default=120)
parser.add_argument("--lr", type=float, default=5e-4)
parser.add_argument("--margin", type=float, default=0.2)
parser.add_argument("--epochs", type=int, default=40)
parser.add_argument("--warmup-epochs", type=int, default=2)
parser.add_argument("--dim", type=int, default=128)
parser.add_argument("--ckpt-dir", default="./ckpt")
args = parser.parse_args()

hvd.init()
for gpu in tf.config.experimental.list_physical_devices("GPU"):
    tf.config.experimental.set_memory_growth(gpu, True)

(x_train, y_train), (x_test, y_test) = load_npz(args.data)
train_ds, steps = train_pipeline(x_train, y_train, args.batch_size, hvd.size(), hvd.rank())

model = keras.Sequential([
    keras.Input(x_train.shape[1:]),
    keras.layers.Conv2D(64, 3, strides=2, activation="relu"),
    keras.layers.Conv2D(128, 3, strides=2, activation="relu"),
    keras.layers.GlobalAveragePooling2D(),
    keras.layers.Dense(args.dim),
    keras.layers.UnitNormalization(),
])
optimizer = keras.optimizers.Adam(args.lr * hvd.size())
warmup_step, train_step = make_steps(model, optimizer, args.margin)
hvd.broadcast_variables(model.variables, root_rank=0)

ckpt = tf.train.Checkpoint(step=tf.Variable(0), model=model, optimizer=optimizer)
manager = tf.train.CheckpointManager(ckpt, args.ckpt_dir, max_to_keep=5)

for epoch in range(args.epochs):
    t0 = time.time()
    step_fn = warmup_step if epoch < args.warmup_epochs else train_step
    total = 0.0
    for x, y in train_ds:
        total += float(step_fn(x, y))
        ckpt.step.assign_add(1)
    recalls = recall_at_k(model, x_test, y_test)
    if hvd.rank() == 0:
        print(f"epoch {epoch:3d} ({time.time() - t0:.0f}s) loss {total / steps:.4f} "
              + "  ".join(f"R@{k} {v:.3f}" for k, v in recalls.items()), flush=True)
    manager.save(checkpoint_number=epoch)
