# Homework template: a convolutional network on MNIST with TensorFlow 2, on one worker.
# Your job: turn it into a Horovod program that trains the same model on many workers.
import tensorflow as tf

STEPS = 10000  # optimizer steps to train for

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
optimizer = tf.optimizers.Adam(0.001)

checkpoint_dir = "./checkpoints"
checkpoint = tf.train.Checkpoint(model=model, optimizer=optimizer)


@tf.function
def training_step(images, labels):
    with tf.GradientTape() as tape:
        probs = model(images, training=True)
        loss_value = loss_fn(labels, probs)
    grads = tape.gradient(loss_value, model.trainable_variables)
    optimizer.apply_gradients(zip(grads, model.trainable_variables))
    return loss_value


for batch, (images, labels) in enumerate(dataset.take(STEPS)):
    loss_value = training_step(images, labels)
    if batch % 100 == 0:
        print("step %5d  loss %.4f" % (batch, loss_value))

checkpoint.save(checkpoint_dir)
