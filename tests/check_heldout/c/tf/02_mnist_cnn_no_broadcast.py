import os
import time
import argparse

import tensorflow as tf
import horovod.tensorflow.keras as hvd

parser = argparse.ArgumentParser(description='MNIST CNN, data parallel with Horovod')
parser.add_argument('--epochs', type=int, default=24)
parser.add_argument('--batch_size', type=int, default=128)
parser.add_argument('--lr', type=float, default=0.001)
parser.add_argument('--warmup', type=int, default=3)
parser.add_argument('--ckpt_dir', type=str, default='./ckpt')
args = parser.parse_args()

# Initialize Horovod
hvd.init()
print('rank %d of %d (local rank %d)' % (hvd.rank(), hvd.size(), hvd.local_rank()))

# Pin GPU to be used to process local rank (one GPU per process)
gpus = tf.config.list_physical_devices('GPU')
for gpu in gpus:
    tf.config.experimental.set_memory_growth(gpu, True)
if gpus:
    tf.config.set_visible_devices(gpus[hvd.local_rank()], 'GPU')

# each rank gets its own copy of the file so they don't race on the download
(mnist_images, mnist_labels), (test_images, test_labels) = \
    tf.keras.datasets.mnist.load_data(path='mnist-%d.npz' % hvd.rank())

dataset = tf.data.Dataset.from_tensor_slices(
    (tf.cast(mnist_images[..., tf.newaxis] / 255.0, tf.float32),
     tf.cast(mnist_labels, tf.int64))
)
dataset = dataset.repeat().shuffle(10000).batch(args.batch_size)

test_ds = tf.data.Dataset.from_tensor_slices(
    (tf.cast(test_images[..., tf.newaxis] / 255.0, tf.float32),
     tf.cast(test_labels, tf.int64))
).batch(1000)

mnist_model = tf.keras.Sequential([
    tf.keras.layers.Conv2D(32, [3, 3], activation='relu'),
    tf.keras.layers.Conv2D(64, [3, 3], activation='relu'),
    tf.keras.layers.MaxPooling2D(pool_size=(2, 2)),
    tf.keras.layers.Dropout(0.25),
    tf.keras.layers.Flatten(),
    tf.keras.layers.Dense(128, activation='relu'),
    tf.keras.layers.Dropout(0.5),
    tf.keras.layers.Dense(10, activation='softmax')
])

# Horovod: adjust learning rate based on number of GPUs.
scaled_lr = args.lr * hvd.size()
opt = tf.keras.optimizers.Adam(scaled_lr)

# Horovod: add Horovod DistributedOptimizer.
opt = hvd.DistributedOptimizer(opt)

mnist_model.compile(loss=tf.losses.SparseCategoricalCrossentropy(),
                    optimizer=opt,
                    metrics=['accuracy'],
                    experimental_run_tf_function=False)

callbacks = [
    # Horovod: average metrics among workers at the end of every epoch.
    hvd.callbacks.MetricAverageCallback(),

    # Horovod: using `lr = 1.0 * hvd.size()` from the very beginning leads to worse final
    # accuracy. Scale the learning rate `lr = 1.0` ---> `lr = 1.0 * hvd.size()` during
    # the first three epochs.
    hvd.callbacks.LearningRateWarmupCallback(initial_lr=scaled_lr, warmup_epochs=args.warmup, verbose=1),
]

# Horovod: save checkpoints only on worker 0 to prevent other workers from corrupting them.
if hvd.rank() == 0:
    os.makedirs(args.ckpt_dir, exist_ok=True)
    callbacks.append(tf.keras.callbacks.ModelCheckpoint(os.path.join(args.ckpt_dir, 'checkpoint-{epoch}.h5')))

verbose = 1 if hvd.rank() == 0 else 0

t0 = time.time()
# Horovod: adjust number of steps based on number of GPUs.
mnist_model.fit(dataset, steps_per_epoch=500 // hvd.size(), callbacks=callbacks, epochs=args.epochs,
                verbose=verbose)
if hvd.rank() == 0:
    print('training took %.1f s on %d workers' % (time.time() - t0, hvd.size()))

loss, acc = mnist_model.evaluate(test_ds, verbose=0)
if hvd.rank() == 0:
    print('test loss %.4f, test accuracy %.4f' % (loss, acc))
