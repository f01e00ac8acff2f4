# IMDB sentiment classifier (embedding + BiLSTM), TF2 custom loop with Horovod.
# usage: horovodrun -np 4 -H localhost:4 python 07_text_classifier_noshard.py
import argparse
import os

import tensorflow as tf
import tensorflow_datasets as tfds
import horovod.tensorflow as hvd

VOCAB = 20000
SEQ_LEN = 256

parser = argparse.ArgumentParser()
parser.add_argument("--epochs", default=3, type=int)
parser.add_argument("--batch_size", default=64, type=int)
parser.add_argument("--learning_rate", default=1e-3, type=float)
parser.add_argument("--ckpt", default="./imdb_ckpt")
args = parser.parse_args()

hvd.init()
physical = tf.config.list_physical_devices("GPU")
for d in physical:
    tf.config.experimental.set_memory_growth(d, True)
if physical:
    tf.config.set_visible_devices(physical[hvd.local_rank()], "GPU")

train_raw, test_raw = tfds.load("imdb_reviews", split=["train", "test"], as_supervised=True)

vectorize = tf.keras.layers.TextVectorization(max_tokens=VOCAB, output_sequence_length=SEQ_LEN)
vectorize.adapt(train_raw.map(lambda text, label: text).batch(1024))


def prep(text, label):
    return vectorize(text), label


train_ds = (train_raw.shuffle(25000)
            .batch(args.batch_size)
            .map(prep, num_parallel_calls=tf.data.AUTOTUNE)
            .prefetch(tf.data.AUTOTUNE))
test_ds = test_raw.batch(512).map(prep).prefetch(tf.data.AUTOTUNE)

model = tf.keras.Sequential([
    tf.keras.layers.Embedding(VOCAB, 128, mask_zero=True),
    tf.keras.layers.Bidirectional(tf.keras.layers.LSTM(64)),
    tf.keras.layers.Dense(64, activation="relu"),
    tf.keras.layers.Dropout(0.3),
    tf.keras.layers.Dense(1),
])

optimizer = tf.keras.optimizers.Adam(args.learning_rate)
loss_fn = tf.keras.losses.BinaryCrossentropy(from_logits=True)
train_acc = tf.keras.metrics.BinaryAccuracy(threshold=0.0)
test_acc = tf.keras.metrics.BinaryAccuracy(threshold=0.0)

checkpoint = tf.train.Checkpoint(model=model, optimizer=optimizer)
ckpt_prefix = os.path.join(args.ckpt, "ckpt")


@tf.function
def train_step(x, y, first_batch):
    with tf.GradientTape() as tape:
        logits = tf.squeeze(model(x, training=True), -1)
        loss = loss_fn(tf.cast(y, tf.float32), logits)
    tape = hvd.DistributedGradientTape(tape)
    grads = tape.gradient(loss, model.trainable_variables)
    optimizer.apply_gradients(zip(grads, model.trainable_variables))
    if first_batch:
        hvd.broadcast_variables(model.variables, root_rank=0)
        hvd.broadcast_variables(optimizer.variables(), root_rank=0)
    train_acc.update_state(y, logits)
    return loss


@tf.function
def test_step(x, y):
    logits = tf.squeeze(model(x, training=False), -1)
    test_acc.update_state(y, logits)


for epoch in range(args.epochs):
    train_acc.reset_states()
    test_acc.reset_states()
    for batch_idx, (x, y) in enumerate(train_ds):
        loss = train_step(x, y, epoch == 0 and batch_idx == 0)
        if batch_idx % 50 == 0 and hvd.rank() == 0:
            print("epoch %d batch %d loss %.4f" % (epoch, batch_idx, loss))
    for x, y in test_ds:
        test_step(x, y)
    if hvd.rank() == 0:
        print("epoch %d: train acc %.4f  test acc %.4f" % (
            epoch, train_acc.result(), test_acc.result()))
        checkpoint.save(ckpt_prefix)
