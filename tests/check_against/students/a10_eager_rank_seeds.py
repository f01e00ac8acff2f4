import tensorflow as tf
import horovod.tensorflow as hvd


def main():
    hvd.init()
    gpus = tf.config.list_physical_devices("GPU")
    for g in gpus:
        tf.config.experimental.set_memory_growth(g, True)
    if gpus:
        tf.config.set_visible_devices(gpus[hvd.local_rank()], "GPU")

    (x, y), _ = tf.keras.datasets.mnist.load_data()
    ds = tf.data.Dataset.from_tensor_slices((tf.cast(x[..., None] / 255.0, tf.float32), tf.cast(y, tf.int64)))
    # every worker shuffles with its own seed, so they see different batches
    ds = ds.repeat().shuffle(10000, seed=hvd.rank()).batch(128)

    model = tf.keras.Sequential([
        tf.keras.layers.Conv2D(32, [3, 3], activation="relu"),
        tf.keras.layers.Conv2D(64, [3, 3], activation="relu"),
        tf.keras.layers.MaxPooling2D(pool_size=(2, 2)),
        tf.keras.layers.Dropout(0.25),
        tf.keras.layers.Flatten(),
        tf.keras.layers.Dense(128, activation="relu"),
        tf.keras.layers.Dropout(0.5),
        tf.keras.layers.Dense(10, activation="softmax"),
    ])
    loss_fn = tf.losses.SparseCategoricalCrossentropy()
    opt = tf.optimizers.Adam(0.001 * hvd.size())
    ckpt = tf.train.Checkpoint(model=model, optimizer=opt)

    # no tf.function: easier to debug
    for step, (images, labels) in enumerate(ds.take(10000 // hvd.size())):
        with tf.GradientTape() as tape:
            loss = loss_fn(labels, model(images, training=True))
        tape = hvd.DistributedGradientTape(tape)
        grads = tape.gradient(loss, model.trainable_variables)
        opt.apply_gradients(zip(grads, model.trainable_variables))
        if step == 0:
            hvd.broadcast_variables(model.variables, root_rank=0)
            hvd.broadcast_variables(opt.variables, root_rank=0)
        if step % 100 == 0 and hvd.rank() == 0:
            print(f"step {step}: loss {loss.numpy():.4f}")

    if hvd.rank() == 0:
        ckpt.save("./checkpoints")


if __name__ == "__main__":
    main()
