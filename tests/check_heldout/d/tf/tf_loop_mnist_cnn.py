"""MNIST CNN, TF2 custom training loop + Horovod (cluster tutorial, week 3)."""
import os
import argparse
import tensorflow as tf
import horovod.tensorflow as hvd

parser = argparse.ArgumentParser()
parser.add_argument("--epochs", type=int, default=10)
parser.add_argument("--batch-size", type=int, default=128)
parser.add_argument("--lr", type=float, default=1e-3)
parser.add_argument("--ckpt-dir", default="./checkpoints_mnist")
args = parser.parse_args()

hvd.init()

gpus = tf.config.experimental.list_physical_devices("GPU")
for gpu in gpus:
    tf.config.experimental.set_memory_growth(gpu, True)
if gpus:
    tf.config.experimental.set_visible_devices(gpus[hvd.local_rank()], "GPU")

(x_train, y_train), (x_test, y_test) = tf.keras.datasets.mnist.load_data(
    path="mnist-%d.npz" % hvd.rank())
x_train = (x_train[..., None] / 255.0).astype("float32")
x_test = (x_test[..., None] / 255.0).astype("float32")

train_ds = (tf.data.Dataset.from_tensor_slices((x_train, y_train))
            .shard(num_shards=hvd.size(), index=hvd.rank())
            .shuffle(10000, seed=hvd.rank())
            .batch(args.batch_size, drop_remainder=True)
            .prefetch(tf.data.AUTOTUNE))
test_ds = tf.data.Dataset.from_tensor_slices((x_test, y_test)).batch(1000)

model = tf.keras.Sequential([
    tf.keras.layers.Conv2D(32, 3, activation="relu", input_shape=(28, 28, 1)),
    tf.keras.layers.Conv2D(64, 3, activation="relu"),
    tf.keras.layers.MaxPooling2D(),
    tf.keras.layers.Dropout(0.25),
    tf.keras.layers.Flatten(),
    tf.keras.layers.Dense(128, activation="relu"),
    tf.keras.layers.Dropout(0.5),
    tf.keras.layers.Dense(10),
])
loss_obj = tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True)
opt = tf.keras.optimizers.Adam(learning_rate=args.lr * hvd.size())

checkpoint = tf.train.Checkpoint(model=model, optimizer=opt)
manager = tf.train.CheckpointManager(checkpoint, args.ckpt_dir, max_to_keep=3)

train_loss = tf.keras.metrics.Mean()
train_acc = tf.keras.metrics.SparseCategoricalAccuracy()


@tf.function
def train_step(images, labels, first_batch):
    with tf.GradientTape() as tape:
        logits = model(images, training=True)
        loss = loss_obj(labels, logits)
    tape = hvd.DistributedGradientTape(tape)
    grads = tape.gradient(loss, model.trainable_variables)
    opt.apply_gradients(zip(grads, model.trainable_variables))
    # broadcast after the first step so the optimizer slots exist too
    if first_batch:
        hvd.broadcast_variables(model.variables, root_rank=0)
        hvd.broadcast_variables(opt.variables(), root_rank=0)
    train_loss.update_state(loss)
    train_acc.update_state(labels, logits)


@tf.function
def eval_step(images, labels):
    return tf.reduce_sum(tf.cast(tf.equal(tf.argmax(model(images, training=False), -1, output_type=tf.int32),
                                          tf.cast(labels, tf.int32)), tf.float32))


global_step = 0
for epoch in range(args.epochs):
    train_loss.reset_states()
    train_acc.reset_states()
    for images, labels in train_ds:
        train_step(images, labels, global_step == 0)
        global_step += 1

    loss_avg = hvd.allreduce(train_loss.result())
    acc_avg = hvd.allreduce(train_acc.result())

    # test set is small: every worker scores all of it
    correct = sum(float(eval_step(x, y)) for x, y in test_ds)
    test_acc = correct / len(x_test)

    if hvd.rank() == 0:
        print("epoch %d: loss %.4f acc %.4f test_acc %.4f" % (epoch, loss_avg, acc_avg, test_acc))
        manager.save(checkpoint_number=epoch)
