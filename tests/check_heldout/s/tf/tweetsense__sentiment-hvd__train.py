# Sentiment classifier for the support-tweets stream (3 classes), horovod.tensorflow.keras.
# Data: tokenised with our sentencepiece model by tools/encode.py -> train.npz / dev.npz (ids, label)
# Run:  horovodrun -np 8 -H node1:4,node2:4 python train.py --data /shared/tweets --out /shared/runs/sent-v7
import argparse
import os

import numpy as np
import tensorflow as tf
import keras
import horovod.tensorflow.keras as hvd

p = argparse.ArgumentParser()
p.add_argument("--data", default="/shared/tweets")
p.add_argument("--out", default="/shared/runs/sent")
p.add_argument("--epochs", type=int, default=8)
p.add_argument("--batch", type=int, default=128)
p.add_argument("--lr", type=float, default=5e-4)
p.add_argument("--vocab", type=int, default=24000)
p.add_argument("--maxlen", type=int, default=64)
args = p.parse_args()

hvd.init()
keras.utils.set_random_seed(11)


def load(split):
    z = np.load(os.path.join(args.data, f"{split}.npz"), allow_pickle=True)      # ids are ragged lists
    ids = keras.utils.pad_sequences(z["ids"], maxlen=args.maxlen, padding="post", truncating="post")
    return ids.astype("int32"), z["label"].astype("int32")


x_train, y_train = load("train")
x_dev, y_dev = load("dev")

train_ds = (tf.data.Dataset.from_tensor_slices((x_train, y_train))
            .shard(hvd.size(), hvd.rank())
            .shuffle(20000, reshuffle_each_iteration=True)
            .batch(args.batch, drop_remainder=True)
            .repeat())
dev_ds = (tf.data.Dataset.from_tensor_slices((x_dev, y_dev))
          .shard(hvd.size(), hvd.rank())
          .batch(args.batch, drop_remainder=True)
          .repeat())
steps_per_epoch = len(x_train) // (args.batch * hvd.size())
dev_steps = len(x_dev) // (args.batch * hvd.size())

inputs = keras.Input((args.maxlen,), dtype="int32")
h = keras.layers.Embedding(args.vocab, 200, mask_zero=True)(inputs)
h = keras.layers.Conv1D(256, 5, padding="same", activation="relu")(h)
h = keras.layers.GlobalMaxPooling1D()(h)
h = keras.layers.Dropout(0.3)(h)
outputs = keras.layers.Dense(3, activation="softmax")(h)
model = keras.Model(inputs, outputs)

opt = keras.optimizers.Adam(learning_rate=args.lr * hvd.size())
opt = hvd.DistributedOptimizer(opt)
model.compile(optimizer=opt, loss="sparse_categorical_crossentropy", metrics=["accuracy"])

callbacks = [
    hvd.callbacks.BroadcastGlobalVariablesCallback(0),
    hvd.callbacks.MetricAverageCallback(),
    hvd.callbacks.LearningRateWarmupCallback(initial_lr=args.lr * hvd.size(), warmup_epochs=1,
                                             steps_per_epoch=steps_per_epoch),
    keras.callbacks.ReduceLROnPlateau(monitor="val_loss", factor=0.5, patience=1),
]
# one writer per machine, the others would clobber the file
if hvd.local_rank() == 0:
    os.makedirs(args.out, exist_ok=True)
    callbacks.append(keras.callbacks.ModelCheckpoint(os.path.join(args.out, "sent-{epoch:02d}.keras")))

model.fit(train_ds, steps_per_epoch=steps_per_epoch, epochs=args.epochs,
          validation_data=dev_ds, validation_steps=dev_steps,
          callbacks=callbacks, verbose=1 if hvd.rank() == 0 else 0)

if hvd.rank() == 0:
    model.save(os.path.join(args.out, "sent-final.keras"))
