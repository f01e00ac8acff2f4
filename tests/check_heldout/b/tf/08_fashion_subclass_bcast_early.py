import argparse
import os
import time

import numpy as np
import tensorflow as tf
import horovod.tensorflow as hvd


def get_args():
    parser = argparse.ArgumentParser(description="Fashion-MNIST ResNet-ish, horovod")
    parser.add_argument("--epochs", type=int, default=15)
    parser.add_argument("--batch-size", type=int, default=64)
    parser.add_argument("--lr", type=float, default=0.01)
    parser.add_argument("--momentum", type=float, default=0.9)
    parser.add_argument("--checkpoint-dir", default="./ckpt_fashion")
    parser.add_argument("--log-interval", type=int, default=100)
    return parser.parse_args()


class ResBlock(tf.keras.layers.Layer):
    def __init__(self, filters, stride=1):
        super().__init__()
        self.c1 = tf.keras.layers.Conv2D(filters, 3, stride, padding="same", use_bias=False)
        self.b1 = tf.keras.layers.BatchNormalization()
        self.c2 = tf.keras.layers.Conv2D(filters, 3, 1, padding="same", use_bias=False)
        self.b2 = tf.keras.layers.BatchNormalization()
        self.proj = None
        if stride != 1:
            self.proj = tf.keras.layers.Conv2D(filters, 1, stride, use_bias=False)

    def call(self, x, training=False):
        h = tf.nn.relu(self.b1(self.c1(x), training=training))
        h = self.b2(self.c2(h), training=training)
        sc = x if self.proj is None else self.proj(x)
        return tf.nn.relu(h + sc)


class SmallResNet(tf.keras.Model):
    def __init__(self, num_classes=10):
        super().__init__()
        self.stem = tf.keras.layers.Conv2D(32, 3, padding="same")
        self.blocks = [ResBlock(32), ResBlock(64, 2), ResBlock(64), ResBlock(128, 2)]
        self.pool = tf.keras.layers.GlobalAveragePooling2D()
        self.fc = tf.keras.layers.Dense(num_classes)

    def call(self, x, training=False):
        x = self.stem(x)
        for b in self.blocks:
            x = b(x, training=training)
        return self.fc(self.pool(x))


def load_data(batch_size):
    (xtr, ytr), (xte, yte) = tf.keras.datasets.fashion_mnist.load_data()
    xtr = (xtr.astype(np.float32) / 255.0)[..., np.newaxis]
    xte = (xte.astype(np.float32) / 255.0)[..., np.newaxis]
    train = tf.data.Dataset.from_tensor_slices((xtr, ytr))
    train = train.shard(num_shards=hvd.size(), index=hvd.rank())
    train = train.shuffle(8192).batch(batch_size, drop_remainder=True).prefetch(4)
    test = tf.data.Dataset.from_tensor_slices((xte, yte)).batch(1000)
    return train, test


def main():
    args = get_args()
    hvd.init()
    gpus = tf.config.experimental.list_physical_devices('GPU')
    for gpu in gpus:
        tf.config.experimental.set_memory_growth(gpu, True)
    if gpus:
        tf.config.experimental.set_visible_devices(gpus[hvd.local_rank()], 'GPU')

    train_ds, test_ds = load_data(args.batch_size)

    model = SmallResNet()
    optimizer = tf.keras.optimizers.SGD(learning_rate=args.lr * hvd.size(), momentum=args.momentum)
    criterion = tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True)

    # make sure all workers start from the same weights
    hvd.broadcast_variables(model.variables, root_rank=0)

    ckpt = tf.train.Checkpoint(model=model, optimizer=optimizer)
    manager = tf.train.CheckpointManager(ckpt, args.checkpoint_dir, max_to_keep=2)

    @tf.function
    def train_step(x, y):
        with tf.GradientTape() as tape:
            out = model(x, training=True)
            loss = criterion(y, out)
        tape = hvd.DistributedGradientTape(tape)
        grads = tape.gradient(loss, model.trainable_variables)
        optimizer.apply_gradients(zip(grads, model.trainable_variables))
        return loss

    @tf.function
    def eval_step(x, y):
        out = model(x, training=False)
        return tf.reduce_sum(tf.cast(tf.argmax(out, 1, output_type=tf.int32) == tf.cast(y, tf.int32), tf.float32))

    for epoch in range(1, args.epochs + 1):
        tic = time.time()
        losses = []
        for i, (x, y) in enumerate(train_ds):
            loss = train_step(x, y)
            losses.append(loss.numpy())
            if i % args.log_interval == 0 and hvd.rank() == 0:
                print(f"Train Epoch: {epoch} [{i}] loss: {loss.numpy():.4f}")
        mean_loss = hvd.allreduce(np.mean(losses), name="mean_loss").numpy()

        correct = 0.0
        for x, y in test_ds:
            correct += eval_step(x, y).numpy()
        acc = correct / 10000.0

        if hvd.rank() == 0:
            print(f"==> epoch {epoch} avg loss {mean_loss:.4f} test acc {acc:.4f} ({time.time() - tic:.1f}s)")
        manager.save(checkpoint_number=epoch)


if __name__ == "__main__":
    main()
