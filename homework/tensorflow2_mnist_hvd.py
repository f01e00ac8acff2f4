"""MNIST CNN in TensorFlow 2 / Keras 3 on Horovod: tensorflow2_mnist.py converted with hvdkit's eight steps.

    mpirun -n 4 python homework/tensorflow2_mnist_hvd.py --dataset fashion-mnist --epochs 16 --metrics hvd4.json

Every line that differs from tensorflow2_mnist.py carries a `# Horovod:` comment naming its step (of the eight
in docs/eight-steps.md); tests/test_homework.py checks that nothing else changed. The metrics log prints and
writes on rank 0 only: it asks hvdkit which rank this is (mnist_common.MetricsLog).
"""
import time

import hvdkit.tensorflow as hk  # Horovod: the eight steps, one call each
import mnist_common
from hvdkit.common.frameworks import import_quietly

# Without TensorFlow's C++ start-up notices (TF_CPP_MIN_LOG_LEVEL=0 shows them).
tf = import_quietly("tensorflow")
keras = import_quietly("keras")


def build_model():
    return keras.Sequential([
        keras.Input((28, 28, 1)),
        keras.layers.Conv2D(32, 3, activation="relu"),
        keras.layers.Conv2D(64, 3, activation="relu"),
        keras.layers.MaxPooling2D(),
        keras.layers.Dropout(0.25),
        keras.layers.Flatten(),
        keras.layers.Dense(128, activation="relu"),
        keras.layers.Dropout(0.5),
        keras.layers.Dense(10),
    ])


def run_epoch(step, batches, prefix):
    """Run `step` over `batches`; {prefix_loss: (sum, count), prefix_accuracy: (sum, count)}."""
    loss_sum = correct = count = 0.0
    for x, y in batches:
        batch_loss, batch_correct = step(x, y)
        loss_sum, correct, count = loss_sum + float(batch_loss), correct + float(batch_correct), count + len(y)
    return {prefix + "_loss": (loss_sum, count), prefix + "_accuracy": (correct, count)}


def main():
    args = mnist_common.parser(__doc__, horovod=True).parse_args()  # Horovod: adds --warmup-epochs
    hk.init(seed=args.seed)  # Horovod: steps 1-2, start Horovod, one GPU per rank (or a share of the cores)
    x_train, y_train, x_test, y_test = mnist_common.load(args)
    train = tf.data.Dataset.from_tensor_slices((x_train[..., None], y_train))
    train = hk.shard(train, args.batch_size, seed=args.seed)  # Horovod: step 3, this rank's part, equal steps on all
    val = tf.data.Dataset.from_tensor_slices((x_test[..., None], y_test))
    val = hk.shard_eval(val, args.batch_size)  # Horovod: step 3, each validation sample on one rank, once

    model = build_model()
    opt = keras.optimizers.Adam(hk.scale_lr(args.lr))  # Horovod: step 4, LR x ranks for the larger global batch
    hk.warmup(opt, epochs=args.warmup_epochs, steps_per_epoch=train.steps)  # Horovod: step 4, ramped up from --lr
    loss_fn = keras.losses.SparseCategoricalCrossentropy(from_logits=True, reduction=None)

    def sums(y, logits):
        hits = tf.cast(tf.equal(tf.argmax(logits, axis=1), y), tf.float32)
        return tf.reduce_sum(loss_fn(y, logits)), tf.reduce_sum(hits)

    @tf.function
    def train_step(x, y):
        with tf.GradientTape() as tape:
            logits = model(x, training=True)
            loss = tf.reduce_mean(loss_fn(y, logits))
        tape = hk.DistributedGradientTape(tape)  # Horovod: step 5, gradients averaged over ranks
        grads = tape.gradient(loss, model.trainable_variables)
        opt.apply_gradients(zip(grads, model.trainable_variables))
        return sums(y, logits)

    @tf.function
    def val_step(x, y):
        return sums(y, model(x, training=False))

    hk.broadcast_state(model, opt)  # Horovod: step 6, all ranks start from rank 0's weights and optimizer
    ckpt = hk.Checkpointer(args.checkpoint_dir) if args.checkpoint_dir else None  # Horovod: step 7, rank 0 writes
    start = ckpt.restore(model=model, optimizer=opt) if ckpt else 0  # Horovod: step 7, every rank resumes alike
    log = mnist_common.MetricsLog(args, "tensorflow")
    log.resume(start)
    for epoch in range(start, args.epochs):
        t0 = time.perf_counter()
        batches = train.for_epoch(epoch)  # Horovod: step 3, shuffled by (seed, epoch), the same on every rank
        pairs = run_epoch(train_step, batches, "train")
        train_time = time.perf_counter() - t0
        pairs.update(run_epoch(val_step, val, "val"))
        metrics = hk.average_metrics(pairs)  # Horovod: step 8, sums and counts added over ranks, then divided
        log.add(epoch, **metrics, time=train_time, val_time=time.perf_counter() - t0 - train_time)
        if ckpt:
            ckpt.save(epoch, model=model, optimizer=opt)  # Horovod: step 7


if __name__ == "__main__":
    main()
