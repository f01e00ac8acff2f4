"""A small classifier trained with a GradientTape loop on Horovod's TensorFlow API, written for hvdkit
check's class cases. Every case in cases.py is this file with a few explicit edits; as it stands, all
eight steps are right.
"""
import os

import numpy as np
import tensorflow as tf
import horovod.tensorflow as hvd

EPOCHS = 2
BATCH = 32


def main(out_dir="."):
    hvd.init()
    gpus = tf.config.list_physical_devices("GPU")
    if gpus:
        tf.config.set_visible_devices(gpus[hvd.local_rank()], "GPU")
    tf.config.threading.set_intra_op_parallelism_threads(1)

    rng = np.random.default_rng(3)
    images = rng.random((512, 6)).astype("float32")
    classes = (images.sum(axis=1) > 3).astype("int64")
    data = tf.data.Dataset.from_tensor_slices((images, classes))
    data = data.shard(hvd.size(), hvd.rank()).shuffle(256).batch(BATCH)

    clf = tf.keras.Sequential([tf.keras.layers.Dense(12, activation="relu"), tf.keras.layers.Dense(2)])
    adam = tf.keras.optimizers.Adam(learning_rate=0.001 * hvd.size())
    xent = tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True)
    ckpt = tf.train.Checkpoint(model=clf, optimizer=adam)

    step = 0
    for epoch in range(EPOCHS):
        loss_total, batches = 0.0, 0
        for x, y in data:
            with tf.GradientTape() as tape:
                loss = xent(y, clf(x, training=True))
            tape = hvd.DistributedGradientTape(tape)
            grads = tape.gradient(loss, clf.trainable_variables)
            adam.apply_gradients(zip(grads, clf.trainable_variables))
            if step == 0:
                hvd.broadcast_variables(clf.variables, root_rank=0)
                hvd.broadcast_variables(adam.variables, root_rank=0)
            step += 1
            loss_total += float(loss)
            batches += 1
        mean_loss = hvd.allreduce(tf.constant(loss_total / batches), op=hvd.Average)
        if hvd.rank() == 0:
            print("epoch", epoch, "loss", float(mean_loss))
            ckpt.write(os.path.join(out_dir, "clf"))


if __name__ == "__main__":
    main()
