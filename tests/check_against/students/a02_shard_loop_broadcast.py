import tensorflow as tf
import horovod.tensorflow as hvd

hvd.init()
print(f"I am rank {hvd.rank()} of {hvd.size()}")

STEPS = 10000

(x_train, y_train), _ = tf.keras.datasets.mnist.load_data(path="mnist.npz")
images = tf.cast(x_train[..., tf.newaxis] / 255.0, tf.float32)
labels = tf.cast(y_train, tf.int64)

# each rank gets its own slice of the data before shuffling
dataset = tf.data.Dataset.from_tensor_slices((images, labels)).shard(hvd.size(), hvd.rank())
dataset = dataset.repeat().shuffle(10000).batch(128)

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
lr = 0.001 * hvd.size()
optimizer = tf.optimizers.Adam(lr)

checkpoint = tf.train.Checkpoint(model=model, optimizer=optimizer)


@tf.function
def training_step(images, labels):
    with tf.GradientTape() as tape:
        probs = model(images, training=True)
        loss_value = loss_fn(labels, probs)
    tape = hvd.DistributedGradientTape(tape)
    grads = tape.gradient(loss_value, model.trainable_variables)
    optimizer.apply_gradients(zip(grads, model.trainable_variables))
    return loss_value


for batch, (images, labels) in enumerate(dataset.take(STEPS // hvd.size())):
    loss_value = training_step(images, labels)
    if batch == 0:
        # the model is built now, sync everyone to rank 0
        hvd.broadcast_variables(model.variables, root_rank=0)
        hvd.broadcast_variables(optimizer.variables, root_rank=0)
    if batch % 100 == 0 and hvd.rank() == 0:
        print("step", batch, "loss", float(loss_value))

if hvd.rank() == 0:
    checkpoint.save("./checkpoints")
