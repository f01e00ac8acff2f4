import time

import tensorflow as tf
import keras
import horovod.tensorflow as hvd

from galaxy.data import load
from galaxy.model import build_model
from galaxy.options import get_parser
from galaxy.utils import CheckpointKeeper, seed_everything


def main():
    args = get_parser().parse_args()
    hvd.init()
    gpus = tf.config.list_physical_devices("GPU")
    for gpu in gpus:
        tf.config.experimental.set_memory_growth(gpu, True)
    if gpus:
        tf.config.set_visible_devices(gpus[hvd.local_rank()], "GPU")
    # different augmentation / shuffling streams per worker
    seed_everything(args.seed + hvd.rank())

    train_ds, test_ds, num_classes = load(args.data, args.batch_size, hvd.rank(), hvd.size())
    model = build_model(num_classes, recompute=args.recompute)
    optimizer = keras.optimizers.Adam(learning_rate=args.lr)
    loss_fn = keras.losses.SparseCategoricalCrossentropy(from_logits=True)

    keeper = CheckpointKeeper(args.ckpt_dir, hvd.rank() == 0, model=model, optimizer=optimizer)
    start_epoch = keeper.restore()

    @tf.function
    def train_step(x, y):
        with tf.GradientTape() as tape:
            loss = loss_fn(y, model(x, training=True))
        tape = hvd.DistributedGradientTape(tape, compression=hvd.Compression.fp16)
        grads = tape.gradient(loss, model.trainable_variables)
        optimizer.apply_gradients(zip(grads, model.trainable_variables))
        return loss

    @tf.function
    def test_step(x, y):
        logits = model(x, training=False)
        correct = tf.reduce_sum(tf.cast(tf.argmax(logits, -1) == y, tf.float32))
        loss = tf.reduce_sum(loss_fn(y, logits)) * tf.cast(tf.shape(y)[0], tf.float32)
        return tf.stack([loss, correct, tf.cast(tf.shape(y)[0], tf.float32)])

    for epoch in range(start_epoch, args.epochs):
        t0 = time.time()
        total, batches = 0.0, 0
        for x, y in train_ds:
            total += float(train_step(x, y))
            batches += 1
        sums = tf.zeros(3)
        for x, y in test_ds:
            sums += test_step(x, y)
        sums = hvd.allreduce(sums, op=hvd.Sum, name="test_sums")
        if hvd.rank() == 0:
            print(f"epoch {epoch + 1:3d} train_loss {total / max(batches, 1):.4f} "
                  f"test_loss {float(sums[0] / sums[2]):.4f} test_acc {float(sums[1] / sums[2]):.4f} "
                  f"({time.time() - t0:.0f}s)", flush=True)
        if (epoch + 1) % args.save_every == 0:
            keeper.save(epoch + 1)


if __name__ == "__main__":
    main()
