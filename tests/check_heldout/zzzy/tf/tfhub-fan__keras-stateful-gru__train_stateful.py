#!/usr/bin/env python3
# stateful GRU char model, keras 3 + horovod
# mpirun -np 8 -H n1:4,n2:4 python train_stateful.py lyrics.txt
import sys
import os
import numpy as np
import tensorflow as tf
import keras
import horovod.tensorflow.keras as hvd

hvd.init()
gpus = tf.config.list_physical_devices('GPU')
if gpus:
    tf.config.experimental.set_memory_growth(gpus[hvd.local_rank()], True)
    tf.config.set_visible_devices(gpus[hvd.local_rank()], 'GPU')

path = sys.argv[1] if len(sys.argv) > 1 else 'lyrics.txt'
BATCH = 64
SEQ = 64
EPOCHS = 40
CKPT = 'ckpt/gru-{epoch:03d}-{loss:.3f}.weights.h5'

text = open(path, encoding='utf-8').read()
chars = sorted(set(text))
c2i = {c: i for i, c in enumerate(chars)}
ids = np.array([c2i[c] for c in text], dtype=np.int32)

# each worker trains on its own slice of the text
n = len(ids) // hvd.local_size()
ids = ids[hvd.local_rank() * n:(hvd.local_rank() + 1) * n]

# BATCH contiguous streams, ordered so that row j of every batch continues row j of the last one
L = (len(ids) - 1) // BATCH
nwin = L // SEQ
streams = np.stack([ids[j * L:j * L + nwin * SEQ + 1] for j in range(BATCH)])
X = np.concatenate([streams[:, k * SEQ:(k + 1) * SEQ] for k in range(nwin)])
Y = np.concatenate([streams[:, k * SEQ + 1:(k + 1) * SEQ + 1] for k in range(nwin)])

model = keras.Sequential([
    keras.Input(batch_shape=(BATCH, SEQ)),
    keras.layers.Embedding(len(chars), 96),
    keras.layers.GRU(768, return_sequences=True, stateful=True, dropout=0.1),
    keras.layers.GRU(768, return_sequences=True, stateful=True, dropout=0.1),
    keras.layers.Dense(len(chars)),
])

opt = keras.optimizers.RMSprop(learning_rate=0.001 * hvd.size(), clipnorm=1.0)
opt = hvd.DistributedOptimizer(opt)
model.compile(opt, loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True),
              metrics=[keras.metrics.SparseCategoricalAccuracy()])


class ResetCb(keras.callbacks.Callback):
    def on_epoch_begin(self, epoch, logs=None):
        self.model.reset_states() if hasattr(self.model, 'reset_states') else None
        for l in self.model.layers:
            if getattr(l, 'stateful', False):
                l.reset_states()


os.makedirs('ckpt', exist_ok=True)
cbs = [
    hvd.callbacks.BroadcastGlobalVariablesCallback(0),
    hvd.callbacks.MetricAverageCallback(),
    hvd.callbacks.LearningRateWarmupCallback(initial_lr=0.001 * hvd.size(), warmup_epochs=3, verbose=1),
    ResetCb(),
    keras.callbacks.ModelCheckpoint(CKPT, save_weights_only=True, monitor='loss'),
]

model.fit(X, Y, batch_size=BATCH, epochs=EPOCHS, shuffle=False, callbacks=cbs,
          verbose=1 if hvd.rank() == 0 else 0)

if hvd.rank() == 0:
    gen = keras.Sequential([
        keras.Input(batch_shape=(1, 1)),
        keras.layers.Embedding(len(chars), 96),
        keras.layers.GRU(768, return_sequences=True, stateful=True),
        keras.layers.GRU(768, return_sequences=True, stateful=True),
        keras.layers.Dense(len(chars)),
    ])
    gen.set_weights(model.get_weights())
    x = np.array([[c2i.get('\n', 0)]])
    s = []
    for _ in range(500):
        p = tf.nn.softmax(gen.predict_on_batch(x)[0, -1] / 0.7).numpy()
        i = np.random.choice(len(chars), p=p)
        s.append(chars[i])
        x = np.array([[i]])
    print(''.join(s))
