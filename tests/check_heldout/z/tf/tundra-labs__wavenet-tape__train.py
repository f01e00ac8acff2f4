"""Dilated-conv (WaveNet-style) bird-call classifier, Horovod + GradientTape.

Ported from the TF 1.13 version (tf.Session + hvd.BroadcastGlobalVariablesHook) in 2022;
the session config block is kept so the job script's GPU settings keep working.
"""
import argparse
import os

import numpy as np
import tensorflow as tf
import horovod.tensorflow as hvd

parser = argparse.ArgumentParser()
parser.add_argument("--data", default="/scratch/birdcalls/train_16k.npz")
parser.add_argument("--batch-size", type=int, default=32)
parser.add_argument("--lr", type=float, default=1e-3)
parser.add_argument("--epochs", type=int, default=15)
parser.add_argument("--model-dir", default="./wavenet_ckpt")
args = parser.parse_args()

hvd.init()

# GPU setup (from the TF1 script)
config = tf.compat.v1.ConfigProto()
config.gpu_options.allow_growth = True
config.gpu_options.visible_device_list = str(hvd.local_rank())
sess = tf.compat.v1.Session(config=config)

tf.compat.v1.logging.set_verbosity(tf.compat.v1.logging.ERROR)

data = np.load(args.data)
audio = data["audio"].astype(np.float32)[..., None]   # N x 16000 x 1
labels = data["label"].astype(np.int64)
n_classes = int(labels.max()) + 1

dataset = (tf.data.Dataset.from_tensor_slices((audio, labels))
           .shard(hvd.size(), hvd.rank())
           .shuffle(2048, seed=hvd.rank())
           .batch(args.batch_size, drop_remainder=True)
           .prefetch(tf.data.AUTOTUNE))


def residual_stack(x, filters=32, dilations=(1, 2, 4, 8, 16, 32)):
    skips = []
    for d in dilations:
        h = tf.keras.layers.Conv1D(filters, 2, dilation_rate=d, padding="causal", activation="tanh")(x)
        g = tf.keras.layers.Conv1D(filters, 2, dilation_rate=d, padding="causal", activation="sigmoid")(x)
        h = tf.keras.layers.Multiply()([h, g])
        skips.append(tf.keras.layers.Conv1D(filters, 1)(h))
        x = tf.keras.layers.Add()([x, tf.keras.layers.Conv1D(filters, 1)(h)])
    return tf.keras.layers.Add()(skips)


inp = tf.keras.Input(shape=(audio.shape[1], 1))
x = tf.keras.layers.Conv1D(32, 1)(tf.keras.layers.AveragePooling1D(4)(inp))
x = tf.keras.layers.ReLU()(residual_stack(x))
x = tf.keras.layers.GlobalAveragePooling1D()(x)
model = tf.keras.Model(inp, tf.keras.layers.Dense(n_classes)(x))

opt = tf.keras.optimizers.Adam(learning_rate=args.lr * hvd.size())
loss_obj = tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True)
ckpt = tf.train.Checkpoint(model=model, optimizer=opt)


@tf.function
def train_step(x, y):
    with tf.GradientTape() as tape:
        loss = loss_obj(y, model(x, training=True))
    tape = hvd.DistributedGradientTape(tape)
    grads = tape.gradient(loss, model.trainable_variables)
    opt.apply_gradients(zip(grads, model.trainable_variables))
    return loss


for epoch in range(args.epochs):
    total, steps = 0.0, 0
    for step, (x, y) in enumerate(dataset):
        loss = train_step(x, y)
        if epoch == 0 and step == 0:
            # replaces hvd.BroadcastGlobalVariablesHook(0): sync initial weights after the first step
            hvd.broadcast_global_variables(0)
        total += float(loss)
        steps += 1
    epoch_loss = hvd.allreduce(tf.constant(total / max(steps, 1)), name="epoch_loss")
    if hvd.rank() == 0:
        print(f"epoch {epoch}: loss {float(epoch_loss):.4f}")
        ckpt.save(os.path.join(args.model_dir, "ckpt"))
