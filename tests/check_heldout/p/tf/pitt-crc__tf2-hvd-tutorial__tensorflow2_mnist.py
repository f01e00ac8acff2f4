# CRC tutorial: Horovod + TensorFlow 2 (eager, GradientTape)
# Ported from our 2019 TF 1.x tutorial (tf.train.MonitoredTrainingSession +
# hvd.BroadcastGlobalVariablesHook). Submit with the sbatch file in this folder:
#   mpirun -np $SLURM_NTASKS python tensorflow2_mnist.py
import os
import time

import tensorflow as tf
import horovod.tensorflow as hvd

hvd.init()

# one GPU per process
gpus = tf.config.experimental.list_physical_devices("GPU")
for gpu in gpus:
    tf.config.experimental.set_memory_growth(gpu, True)
if gpus:
    tf.config.experimental.set_visible_devices(gpus[hvd.rank()], "GPU")

(mnist_images, mnist_labels), (test_images, test_labels) = \
    tf.keras.datasets.mnist.load_data(path="mnist-%d.npz" % hvd.rank())

dataset = tf.data.Dataset.from_tensor_slices(
    (tf.cast(mnist_images[..., tf.newaxis] / 255.0, tf.float32),
     tf.cast(mnist_labels, tf.int64)))
dataset = dataset.shard(hvd.size(), hvd.rank()).repeat().shuffle(10000).batch(128)

test_ds = tf.data.Dataset.from_tensor_slices(
    (tf.cast(test_images[..., tf.newaxis] / 255.0, tf.float32),
     tf.cast(test_labels, tf.int64))).batch(1000)


class MNISTNet(tf.keras.Model):
    def __init__(self):
        super().__init__()
        self.conv1 = tf.keras.layers.Conv2D(32, 3, activation="relu")
        self.conv2 = tf.keras.layers.Conv2D(64, 3, activation="relu")
        self.pool = tf.keras.layers.MaxPooling2D()
        self.drop1 = tf.keras.layers.Dropout(0.25)
        self.flat = tf.keras.layers.Flatten()
        self.fc1 = tf.keras.layers.Dense(128, activation="relu")
        self.drop2 = tf.keras.layers.Dropout(0.5)
        self.fc2 = tf.keras.layers.Dense(10)

    def call(self, x, training=False):
        x = self.pool(self.conv2(self.conv1(x)))
        x = self.drop1(x, training=training)
        x = self.fc1(self.flat(x))
        return self.fc2(self.drop2(x, training=training))


mnist_model = MNISTNet()
loss_fn = tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True)

# Horovod: scale the learning rate by the number of workers
opt = tf.keras.optimizers.Adam(0.001 * hvd.size())

# TF1 version: hooks=[hvd.BroadcastGlobalVariablesHook(0)]
# in TF2 we broadcast the variables ourselves before training starts
hvd.broadcast_variables(mnist_model.variables, root_rank=0)
hvd.broadcast_variables(opt.variables, root_rank=0)

checkpoint_dir = "./checkpoints"
checkpoint = tf.train.Checkpoint(model=mnist_model, optimizer=opt)


@tf.function
def training_step(images, labels):
    with tf.GradientTape() as tape:
        logits = mnist_model(images, training=True)
        loss_value = loss_fn(labels, logits)

    # Horovod: add Horovod Distributed GradientTape.
    dist_tape = hvd.DistributedGradientTape(tape)
    grads = tape.gradient(loss_value, mnist_model.trainable_variables)
    opt.apply_gradients(zip(grads, mnist_model.trainable_variables))
    return loss_value


# Horovod: adjust number of steps based on number of GPUs.
start = time.time()
for batch, (images, labels) in enumerate(dataset.take(10000 // hvd.size())):
    loss_value = training_step(images, labels)
    if batch % 100 == 0 and hvd.rank() == 0:
        print("Step #%d\tLoss: %.6f" % (batch, loss_value))

if hvd.rank() == 0:
    print("training took %.1f s" % (time.time() - start))
    checkpoint.save(os.path.join(checkpoint_dir, "ckpt"))

    # test accuracy on the full test set (rank 0 only)
    acc = tf.keras.metrics.SparseCategoricalAccuracy()
    for x, y in test_ds:
        acc.update_state(y, mnist_model(x, training=False))
    print("test accuracy: %.4f" % acc.result().numpy())
