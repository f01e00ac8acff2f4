"""Sequential MNIST CNN in TensorFlow 2 / Keras 3: the homework's starting point.

    python homework/tensorflow2_mnist.py --dataset fashion-mnist --epochs 16 --metrics seq.json

tensorflow2_mnist_hvd.py is this file converted to Horovod; `diff` the two to see the conversion.
"""
import time

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
    args = mnist_common.parser(__doc__).parse_args()
    keras.utils.set_random_seed(args.seed)
    x_train, y_train, x_test, y_test = mnist_common.load(args)
    train = tf.data.Dataset.from_tensor_slices((x_train[..., None], y_train))
    val = tf.data.Dataset.from_tensor_slices((x_test[..., None], y_test))
    val = val.batch(args.batch_size)

    model = build_model()
    opt = keras.optimizers.Adam(args.lr)
    loss_fn = keras.losses.SparseCategoricalCrossentropy(from_logits=True, reduction=None)

    def sums(y, logits):
        hits = tf.cast(tf.equal(tf.argmax(logits, axis=1), y), tf.float32)
        return tf.reduce_sum(loss_fn(y, logits)), tf.reduce_sum(hits)

    @tf.function
    def train_step(x, y):
        with tf.GradientTape() as tape:
            logits = model(x, training=True)
            loss = tf.reduce_mean(loss_fn(y, logits))
        grads = tape.gradient(loss, model.trainable_variables)
        opt.apply_gradients(zip(grads, model.trainable_variables))
        return sums(y, logits)

    @tf.function
    def val_step(x, y):
        return sums(y, model(x, training=False))

    state = tf.train.Checkpoint(model=model, optimizer=opt, epoch=tf.Variable(-1, dtype=tf.int64))
    ckpt = tf.train.CheckpointManager(state, args.checkpoint_dir, max_to_keep=3) if args.checkpoint_dir else None
    if ckpt and ckpt.latest_checkpoint:
        state.restore(ckpt.latest_checkpoint)
    start = int(state.epoch) + 1
    log = mnist_common.MetricsLog(args, "tensorflow")
    log.resume(start)
    for epoch in range(start, args.epochs):
        t0 = time.perf_counter()
        batches = train.shuffle(len(x_train), seed=args.seed * 1000 + epoch).batch(args.batch_size)
        pairs = run_epoch(train_step, batches, "train")
        train_time = time.perf_counter() - t0
        pairs.update(run_epoch(val_step, val, "val"))
        metrics = mnist_common.mean(pairs)
        log.add(epoch, **metrics, time=train_time, val_time=time.perf_counter() - t0 - train_time)
        if ckpt:
            state.epoch.assign(epoch)
            ckpt.save()


if __name__ == "__main__":
    main()
