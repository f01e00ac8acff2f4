# CIFAR-100 with a MobileNetV2 backbone, trained from scratch.
# Horovod: each worker loads its own slice of the tfds split.
import argparse
import time

import tensorflow as tf
import tensorflow_datasets as tfds
import horovod.tensorflow as hvd

hvd.init()

gpus = tf.config.experimental.list_physical_devices("GPU")
for gpu in gpus:
    tf.config.experimental.set_memory_growth(gpu, True)
if gpus:
    tf.config.experimental.set_visible_devices(gpus[hvd.local_rank()], "GPU")

parser = argparse.ArgumentParser()
parser.add_argument("--epochs", type=int, default=60)
parser.add_argument("--batch-size", type=int, default=128)
parser.add_argument("--lr", type=float, default=0.01)
parser.add_argument("--weights-out", default="mobilenet_cifar100.h5")
parser.add_argument("--data-dir", default=None)
args = parser.parse_args()

MEAN = tf.constant([0.507, 0.487, 0.441])
STD = tf.constant([0.267, 0.256, 0.276])


def preprocess(example, train):
    img = tf.cast(example["image"], tf.float32) / 255.0
    if train:
        img = tf.image.random_flip_left_right(img)
        img = tf.image.random_crop(tf.pad(img, [[4, 4], [4, 4], [0, 0]], "REFLECT"), [32, 32, 3])
    img = (img - MEAN) / STD
    return img, example["label"]


train_split = tfds.even_splits("train", n=hvd.size())[hvd.rank()]
test_split = tfds.even_splits("test", n=hvd.size())[hvd.rank()]
train_ds = tfds.load("cifar100", split=train_split, data_dir=args.data_dir)
test_ds = tfds.load("cifar100", split=test_split, data_dir=args.data_dir)

train_ds = (train_ds.shuffle(10000)
            .map(lambda e: preprocess(e, True), num_parallel_calls=tf.data.AUTOTUNE)
            .batch(args.batch_size, drop_remainder=True)
            .prefetch(tf.data.AUTOTUNE))
test_ds = (test_ds.map(lambda e: preprocess(e, False), num_parallel_calls=tf.data.AUTOTUNE)
           .batch(256))

model = tf.keras.applications.MobileNetV2(input_shape=(32, 32, 3), weights=None, classes=100)
opt = tf.keras.optimizers.SGD(learning_rate=args.lr * hvd.size(), momentum=0.9)
loss_fn = tf.keras.losses.SparseCategoricalCrossentropy()

train_acc = tf.keras.metrics.SparseCategoricalAccuracy()
test_acc = tf.keras.metrics.SparseCategoricalAccuracy()
train_loss = tf.keras.metrics.Mean()


@tf.function
def training_step(images, labels, first_batch):
    with tf.GradientTape() as tape:
        probs = model(images, training=True)
        loss_value = loss_fn(labels, probs)

    grads = tape.gradient(loss_value, model.trainable_variables)
    # Horovod: add Horovod Distributed GradientTape.
    tape = hvd.DistributedGradientTape(tape)
    opt.apply_gradients(zip(grads, model.trainable_variables))

    # Horovod: broadcast initial variable states from rank 0 to all other processes.
    if first_batch:
        hvd.broadcast_variables(model.variables, root_rank=0)
        hvd.broadcast_variables(opt.variables(), root_rank=0)

    train_loss.update_state(loss_value)
    train_acc.update_state(labels, probs)
    return loss_value


@tf.function
def test_step(images, labels):
    test_acc.update_state(labels, model(images, training=False))


for epoch in range(args.epochs):
    start = time.time()
    for batch, (images, labels) in enumerate(train_ds):
        training_step(images, labels, batch == 0 and epoch == 0)
    for images, labels in test_ds:
        test_step(images, labels)

    if hvd.rank() == 0:
        print("Epoch {}: loss={:.4f} train_acc={:.4f} test_acc={:.4f} time={:.1f}s".format(
            epoch + 1, train_loss.result(), train_acc.result(), test_acc.result(), time.time() - start))
        model.save_weights(args.weights_out)

    train_loss.reset_states()
    train_acc.reset_states()
    test_acc.reset_states()
