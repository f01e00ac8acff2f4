"""
EfficientNet-B0 fine-tuning on a plant-disease image folder.
Big images -> small per-GPU batch, so gradients are accumulated over ACCUM micro-batches
and allreduced once per optimizer step. Mixed precision on A100.
"""
import os
import math
import argparse
import tensorflow as tf
import horovod.tensorflow as hvd

ap = argparse.ArgumentParser()
ap.add_argument("--train-dir", default="/data/plantvillage/train")
ap.add_argument("--val-dir", default="/data/plantvillage/val")
ap.add_argument("--img", type=int, default=380)
ap.add_argument("--micro-bs", type=int, default=8)
ap.add_argument("--accum", type=int, default=8)
ap.add_argument("--base-lr", type=float, default=1e-3)
ap.add_argument("--epochs", type=int, default=15)
ap.add_argument("--ckpt", default="ckpt/effnet")
args = ap.parse_args()

hvd.init()
gpus = tf.config.list_physical_devices("GPU")
if gpus:
    tf.config.experimental.set_visible_devices(gpus[hvd.local_rank()], "GPU")
    tf.config.experimental.set_memory_growth(gpus[hvd.local_rank()], True)
tf.keras.mixed_precision.set_global_policy("mixed_float16")

train_ds = tf.keras.utils.image_dataset_from_directory(
    args.train_dir, image_size=(args.img, args.img), batch_size=None, shuffle=True, seed=1337)
class_names = train_ds.class_names
n_train = int(train_ds.cardinality())
train_ds = train_ds.shard(hvd.size(), hvd.rank()).shuffle(2048).batch(args.micro_bs, drop_remainder=True)
train_ds = train_ds.prefetch(tf.data.AUTOTUNE)
val_ds = tf.keras.utils.image_dataset_from_directory(
    args.val_dir, image_size=(args.img, args.img), batch_size=64, shuffle=False)

base = tf.keras.applications.EfficientNetB0(include_top=False, weights="imagenet", pooling="avg")
inputs = tf.keras.Input((args.img, args.img, 3))
x = base(inputs)
x = tf.keras.layers.Dropout(0.3)(x)
outputs = tf.keras.layers.Dense(len(class_names), dtype="float32")(x)
model = tf.keras.Model(inputs, outputs)

# scale by number of GPUs per node (we always run full nodes)
lr = args.base_lr * hvd.local_size()
opt = tf.keras.optimizers.Adam(learning_rate=lr)
opt = tf.keras.mixed_precision.LossScaleOptimizer(opt)
loss_fn = tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True)

accum = [tf.Variable(tf.zeros_like(v), trainable=False) for v in model.trainable_variables]


@tf.function
def micro_step(x, y):
    with tf.GradientTape() as tape:
        logits = model(x, training=True)
        loss = loss_fn(y, logits)
        scaled = opt.get_scaled_loss(loss / args.accum)
    grads = opt.get_unscaled_gradients(tape.gradient(scaled, model.trainable_variables))
    for a, g in zip(accum, grads):
        a.assign_add(g)
    return loss


@tf.function
def apply_accumulated():
    reduced = [hvd.allreduce(a, op=hvd.Average) for a in accum]
    opt.apply_gradients(zip(reduced, model.trainable_variables))
    for a in accum:
        a.assign(tf.zeros_like(a))


@tf.function
def val_step(x, y):
    logits = model(x, training=False)
    return tf.reduce_sum(tf.cast(tf.equal(tf.argmax(logits, -1, output_type=tf.int32), tf.cast(y, tf.int32)),
                                 tf.float32)), tf.cast(tf.shape(y)[0], tf.float32)


hvd.broadcast_variables(model.variables, root_rank=0)
ckpt = tf.train.Checkpoint(model=model, optimizer=opt)

opt_step = 0
for epoch in range(args.epochs):
    losses = []
    for i, (x, y) in enumerate(train_ds):
        losses.append(micro_step(x, y))
        if (i + 1) % args.accum == 0:
            apply_accumulated()
            opt_step += 1
    train_loss = hvd.allreduce(tf.reduce_mean(tf.stack(losses)), name="train_loss")
    correct = total = 0.0
    for x, y in val_ds:
        c, n = val_step(x, y)
        correct += float(c)
        total += float(n)
    if hvd.rank() == 0:
        print(f"epoch {epoch} step {opt_step} loss {float(train_loss):.4f} val_acc {correct / total:.4f}")
        ckpt.write(f"{args.ckpt}-{epoch}")
