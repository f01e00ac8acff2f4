# News topic classifier (20 topics) - bidirectional GRU over wordpiece ids.
# Input: data/news_{train,test}.npz with `ids` (N, 256) int32 and `topic` (N,) int32, built by tokenize.py
import argparse
import os

import horovod.tensorflow.keras as hvd
import keras
import numpy as np
import tensorflow as tf

parser = argparse.ArgumentParser(description="news topic classifier")
parser.add_argument("--data-dir", default="data")
parser.add_argument("--vocab-size", type=int, default=32000)
parser.add_argument("--embed-dim", type=int, default=256)
parser.add_argument("--units", type=int, default=128)
parser.add_argument("--batch-size", type=int, default=128)
parser.add_argument("--epochs", type=int, default=6)
parser.add_argument("--lr", type=float, default=1e-3)
parser.add_argument("--label-smoothing", type=float, default=0.1)
parser.add_argument("--model-dir", default="models/news_topic")
args = parser.parse_args()

hvd.init()
gpus = tf.config.experimental.list_physical_devices("GPU")
for gpu in gpus:
    tf.config.experimental.set_memory_growth(gpu, True)
if gpus:
    tf.config.experimental.set_visible_devices(gpus[hvd.local_rank()], "GPU")

train = np.load(os.path.join(args.data_dir, "news_train.npz"))
test = np.load(os.path.join(args.data_dir, "news_test.npz"))
x_train, y_train = train["ids"], train["topic"]
x_test, y_test = test["ids"], test["topic"]
n_topics = int(y_train.max()) + 1
y_train_oh = keras.utils.to_categorical(y_train, n_topics)
y_test_oh = keras.utils.to_categorical(y_test, n_topics)


def build_model():
    inp = keras.Input(shape=(x_train.shape[1],), dtype="int32")
    x = keras.layers.Embedding(args.vocab_size, args.embed_dim, mask_zero=True)(inp)
    x = keras.layers.Bidirectional(keras.layers.GRU(args.units, return_sequences=True))(x)
    x = keras.layers.GlobalMaxPooling1D()(x)
    x = keras.layers.Dropout(0.3)(x)
    out = keras.layers.Dense(n_topics, activation="softmax")(x)
    return keras.Model(inp, out)


model = build_model()
opt = keras.optimizers.Adam(learning_rate=args.lr * hvd.size(), clipnorm=1.0)
opt = hvd.DistributedOptimizer(opt)
model.compile(optimizer=opt,
              loss=keras.losses.CategoricalCrossentropy(label_smoothing=args.label_smoothing),
              metrics=["accuracy"])

callbacks = [
    hvd.callbacks.BroadcastGlobalVariablesCallback(0),
    hvd.callbacks.MetricAverageCallback(),
    hvd.callbacks.LearningRateWarmupCallback(initial_lr=args.lr * hvd.size(), warmup_epochs=2, verbose=1),
    keras.callbacks.ReduceLROnPlateau(monitor="val_loss", factor=0.5, patience=1),
]
if hvd.rank() == 0:
    os.makedirs(args.model_dir, exist_ok=True)
    callbacks.append(keras.callbacks.ModelCheckpoint(os.path.join(args.model_dir, "ckpt-{epoch:02d}.keras")))
    callbacks.append(keras.callbacks.CSVLogger(os.path.join(args.model_dir, "history.csv")))

steps_per_epoch = len(x_train) // args.batch_size

model.fit(x_train, y_train_oh,
          batch_size=args.batch_size,
          steps_per_epoch=steps_per_epoch,
          epochs=args.epochs,
          validation_data=(x_test, y_test_oh),
          callbacks=callbacks,
          verbose=1 if hvd.rank() == 0 else 0)

loss, acc = model.evaluate(x_test, y_test_oh, batch_size=512, verbose=0)
if hvd.rank() == 0:
    print(f"test loss {loss:.4f} test accuracy {acc:.4f}")
model.save(os.path.join(args.model_dir, "final.keras"))
