import tensorflow as tf
import horovod.tensorflow as hvd

hvd.init()

STEPS = 10000

(train_images, train_labels), _ = tf.keras.datasets.mnist.load_data(path="mnist.npz")
images = tf.cast(train_images[..., tf.newaxis] / 255.0, tf.float32)
labels = tf.cast(train_labels, tf.int64)
dataset = tf.data.Dataset.from_tensor_slices((images, labels))
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
optimizer = tf.optimizers.Adam(0.001 * hvd.size())
checkpoint = tf.train.Checkpoint(model=model, optimizer=optimizer)


@tf.function
def training_step(images, labels, first_batch):
    with tf.GradientTape() as tape:
        probs = model(images, training=True)
        loss_value = loss_fn(labels, probs)
    grads = tape.gradient(loss_value, model.trainable_variables)
    optimizer.apply_gradients(zip(grads, model.trainable_variables))
    if first_batch:
        hvd.broadcast_variables(model.variables, root_rank=0)
        hvd.broadcast_variables(optimizer.variables, root_rank=0)
    return loss_value


for batch, (images, labels) in enumerate(dataset.take(STEPS // hvd.size())):
    loss_value = training_step(images, labels, batch == 0)
    if batch % 100 == 0 and hvd.rank() == 0:
        print("step %5d  loss %.4f" % (batch, loss_value))

if hvd.rank() == 0:
    checkpoint.save("./checkpoints")
