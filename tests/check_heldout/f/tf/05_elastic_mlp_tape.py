"""
Elastic Horovod training of an MLP regressor on a tabular npz file
(spot instances on our cloud partition come and go).

    horovodrun -np 4 --min-np 2 --max-np 8 --host-discovery-script ./discover_hosts.sh \
        python 05_elastic_mlp_tape.py --data features.npz
"""
import argparse
import os

import numpy as np
import tensorflow as tf
import horovod.tensorflow as hvd

parser = argparse.ArgumentParser()
parser.add_argument("--data", default="features.npz")
parser.add_argument("--batch-size", type=int, default=256)
parser.add_argument("--epochs", type=int, default=20)
parser.add_argument("--base-lr", type=float, default=5e-4)
parser.add_argument("--commit-every", type=int, default=100)
parser.add_argument("--out", default="elastic_out")
args = parser.parse_args()

hvd.init()

gpus = tf.config.experimental.list_physical_devices("GPU")
for gpu in gpus:
    tf.config.experimental.set_memory_growth(gpu, True)
if gpus:
    tf.config.experimental.set_visible_devices(gpus[hvd.local_rank()], "GPU")

blob = np.load(args.data)
X, Y = blob["x"].astype("float32"), blob["y"].astype("float32")
n_features = X.shape[1]

model = tf.keras.Sequential([
    tf.keras.layers.Dense(512, activation="relu", input_shape=(n_features,)),
    tf.keras.layers.Dropout(0.1),
    tf.keras.layers.Dense(256, activation="relu"),
    tf.keras.layers.Dense(1),
])
optimizer = tf.keras.optimizers.Adam(learning_rate=args.base_lr * hvd.size())
mse = tf.keras.losses.MeanSquaredError()


def shard_for_epoch(epoch):
    """Recomputed every epoch: the world size may have changed since the last one."""
    ds = tf.data.Dataset.from_tensor_slices((X, Y))
    ds = ds.shuffle(len(X), seed=epoch, reshuffle_each_iteration=False)
    ds = ds.shard(hvd.size(), hvd.rank())
    return ds.batch(args.batch_size)


@tf.function
def step(x, y, allreduce=True):
    with tf.GradientTape() as tape:
        pred = model(x, training=True)
        loss = mse(y[:, None], pred)
    if allreduce:
        tape = hvd.DistributedGradientTape(tape)
    grads = tape.gradient(loss, model.trainable_variables)
    optimizer.apply_gradients(zip(grads, model.trainable_variables))
    return loss


# one local step so that the optimizer slot variables exist before the state
# object snapshots them (the weights are overwritten by the first sync anyway)
step(X[: args.batch_size], Y[: args.batch_size], allreduce=False)


def save(epoch):
    os.makedirs(args.out, exist_ok=True)
    model.save_weights(os.path.join(args.out, f"mlp_epoch{epoch:03d}.h5"))


@hvd.elastic.run
def train(state):
    while state.epoch < args.epochs:
        ds = shard_for_epoch(state.epoch).skip(state.batch)
        losses = []
        for x, y in ds:
            losses.append(float(step(x, y)))
            state.batch += 1
            if state.batch % args.commit_every == 0:
                state.commit()
        local = float(np.mean(losses)) if losses else 0.0
        epoch_loss = hvd.allreduce(tf.constant(local), name="epoch_mse")
        if hvd.rank() == 0:
            print(f"epoch {state.epoch}: mse {float(epoch_loss):.5f} on {hvd.size()} workers")
            save(state.epoch)
        state.epoch += 1
        state.batch = 0
        state.commit()


def on_state_reset():
    # new world size -> rescale the learning rate
    optimizer.learning_rate.assign(args.base_lr * hvd.size())
    if hvd.rank() == 0:
        print("reset: now", hvd.size(), "workers, lr =", float(optimizer.learning_rate))


state = hvd.elastic.TensorFlowKerasState(model, optimizer, epoch=0, batch=0)
state.register_reset_callbacks([on_state_reset])
train(state)
