import argparse
import os

import horovod.tensorflow as hvd
import keras
import tensorflow as tf

from visionkit.checkpointing import CheckpointHelper
from visionkit.input_pipeline import build_dataset
from visionkit.model import SmallResNetish
from visionkit.steps import make_eval_step, make_train_step

p = argparse.ArgumentParser()
p.add_argument("--data-dir", default="/mnt/datasets/products-v3/tfrecords")
p.add_argument("--model-dir", default="/mnt/runs/products-v3")
p.add_argument("--num-classes", type=int, default=40)
p.add_argument("--batch-size", type=int, default=128, help="per GPU")
p.add_argument("--epochs", type=int, default=30)
p.add_argument("--lr", type=float, default=0.05)
args = p.parse_args()

hvd.init()
gpus = tf.config.list_physical_devices("GPU")
for g in gpus:
    tf.config.experimental.set_memory_growth(g, True)
if gpus:
    tf.config.set_visible_devices(gpus[hvd.local_rank()], "GPU")

train_ds = build_dataset(os.path.join(args.data_dir, "train-*"), args.batch_size, training=True)
val_ds = build_dataset(os.path.join(args.data_dir, "validation-*"), args.batch_size, training=False)

model = SmallResNetish(args.num_classes)
boundaries = [int(0.5 * args.epochs), int(0.75 * args.epochs)]
lr_by_epoch = keras.optimizers.schedules.PiecewiseConstantDecay(
    boundaries, [args.lr * hvd.size(), args.lr * hvd.size() * 0.1, args.lr * hvd.size() * 0.01])
optimizer = keras.optimizers.SGD(learning_rate=args.lr * hvd.size(), momentum=0.9, nesterov=True)
loss_fn = keras.losses.SparseCategoricalCrossentropy(from_logits=True)
val_acc = keras.metrics.SparseCategoricalAccuracy()

train_step = make_train_step(model, optimizer, loss_fn)
eval_step = make_eval_step(model, val_acc)
ckpt = CheckpointHelper(model, optimizer, args.model_dir)

for epoch in range(args.epochs):
    optimizer.learning_rate = float(lr_by_epoch(epoch))
    for step, (images, labels) in enumerate(train_ds):
        loss = train_step(images, labels, epoch == 0 and step == 0)
        if step % 100 == 0 and hvd.rank() == 0:
            print(f"epoch {epoch} step {step} loss {float(loss):.4f}")

    val_acc.reset_state()
    for images, labels in val_ds:
        eval_step(images, labels)
    ckpt.save(epoch)
    if hvd.rank() == 0:
        print(f"epoch {epoch} val_acc {float(val_acc.result()):.4f}")

if hvd.rank() == 0:
    model.save(os.path.join(args.model_dir, "products_classifier.keras"))
