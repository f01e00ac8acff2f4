#!/usr/bin/env python
# LoRA fine-tuning of a pretrained embedding classifier (Keras 3, custom training loop, Horovod).
#
# The base MLP was trained on 1000 ImageNet classes on top of frozen CLIP image embeddings;
# here we adapt it to a 37-class pets dataset by adding low-rank adapters to its Dense
# layers and a new output layer. Everything except the adapters and the new head is frozen.
#
#   horovodrun -np 4 python lora_finetune.py --global-batch 512
import argparse
import json
import os

import numpy as np
import tensorflow as tf
import keras
import horovod.tensorflow as hvd

parser = argparse.ArgumentParser()
parser.add_argument("--emb-dir", default="embeddings/pets_clip_vitb16")
parser.add_argument("--base-weights", default="weights/clip_mlp_in1k.weights.h5")
parser.add_argument("--global-batch", type=int, default=512,
                    help="total batch over all workers; the lr below is tuned for it")
parser.add_argument("--lr", type=float, default=3e-3)
parser.add_argument("--rank", type=int, default=4)
parser.add_argument("--alpha", type=float, default=8.0)
parser.add_argument("--epochs", type=int, default=25)
parser.add_argument("--patience", type=int, default=4)
parser.add_argument("--out", default="lora_out")
args = parser.parse_args()

hvd.init()
gpus = tf.config.experimental.list_physical_devices("GPU")
for gpu in gpus:
    tf.config.experimental.set_memory_growth(gpu, True)
if gpus:
    tf.config.experimental.set_visible_devices(gpus[hvd.local_rank()], "GPU")

local_batch = args.global_batch // hvd.size()


class LoRADense(keras.layers.Layer):
    """Wraps a built Dense layer: y = dense(x) + (alpha/r) * x A B."""

    def __init__(self, dense, r, alpha, **kwargs):
        super().__init__(**kwargs)
        self.dense = dense
        self.dense.trainable = False
        self.r, self.scale = r, alpha / r
        d_in, d_out = dense.kernel.shape
        self.A = self.add_weight(shape=(d_in, r), initializer="he_uniform", name="lora_A")
        self.B = self.add_weight(shape=(r, d_out), initializer="zeros", name="lora_B")

    def call(self, x):
        return self.dense(x) + self.scale * tf.matmul(tf.matmul(x, self.A), self.B)


def base_mlp():
    return keras.Sequential([
        keras.Input((512,)),
        keras.layers.Dense(1024, activation="gelu", name="fc1"),
        keras.layers.Dense(1024, activation="gelu", name="fc2"),
        keras.layers.Dense(1000, name="logits"),
    ], name="clip_mlp")


def lora_model(base, num_classes):
    inp = keras.Input((512,))
    h = LoRADense(base.get_layer("fc1"), args.rank, args.alpha, name="fc1_lora")(inp)
    h = keras.layers.Dropout(0.1)(h)
    h = LoRADense(base.get_layer("fc2"), args.rank, args.alpha, name="fc2_lora")(h)
    out = keras.layers.Dense(num_classes, name="pets_head")(h)
    return keras.Model(inp, out)


def load(split):
    x = np.load(os.path.join(args.emb_dir, f"{split}_x.npy")).astype("float32")
    y = np.load(os.path.join(args.emb_dir, f"{split}_y.npy")).astype("int64")
    return x / np.linalg.norm(x, axis=1, keepdims=True), y


x_train, y_train = load("train")
x_test, y_test = load("test")
n_keep = (len(x_train) // hvd.size()) * hvd.size()
train_ds = (tf.data.Dataset.from_tensor_slices((x_train[:n_keep], y_train[:n_keep]))
            .shard(hvd.size(), hvd.rank())
            .shuffle(8192, reshuffle_each_iteration=True)
            .batch(local_batch, drop_remainder=True))
test_ds = tf.data.Dataset.from_tensor_slices((x_test, y_test)).batch(1024)

base = base_mlp()
base.load_weights(args.base_weights)
model = lora_model(base, num_classes=int(y_train.max()) + 1)
optimizer = keras.optimizers.AdamW(learning_rate=args.lr, weight_decay=0.0)
loss_fn = keras.losses.SparseCategoricalCrossentropy(from_logits=True)


@tf.function
def train_step(x, y, first_batch):
    with tf.GradientTape() as tape:
        loss = loss_fn(y, model(x, training=True))
    tape = hvd.DistributedGradientTape(tape)
    grads = tape.gradient(loss, model.trainable_variables)
    optimizer.apply_gradients(zip(grads, model.trainable_variables))
    if first_batch:
        # frozen base weights come from the same file on every worker; only the
        # freshly initialised adapters/head (and the optimizer slots) need syncing
        hvd.broadcast_variables(model.trainable_variables, root_rank=0)
        hvd.broadcast_variables(optimizer.variables, root_rank=0)
    return loss


def test_accuracy():
    hits = 0
    for x, y in test_ds:
        hits += int(tf.reduce_sum(tf.cast(tf.argmax(model(x, training=False), -1) == y, tf.int32)))
    return hits / len(y_test)


best, waited = 0.0, 0
for epoch in range(args.epochs):
    for step, (x, y) in enumerate(train_ds):
        loss = train_step(x, y, epoch == 0 and step == 0)
    acc = test_accuracy()  # every worker scores the full test split
    if hvd.rank() == 0:
        print(json.dumps({"epoch": epoch, "loss": float(loss), "test_acc": round(acc, 4)}))
        if acc > best:
            os.makedirs(args.out, exist_ok=True)
            np.savez(os.path.join(args.out, "lora_best.npz"),
                     **{v.path.replace("/", "__"): v.numpy() for v in model.trainable_variables})
    waited = 0 if acc > best else waited + 1
    best = max(best, acc)
    stop = hvd.broadcast_object(waited >= args.patience, root_rank=0, name=f"stop_{epoch}")
    if stop:
        break
