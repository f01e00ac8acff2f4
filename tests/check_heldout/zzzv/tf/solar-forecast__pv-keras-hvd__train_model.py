"""
PV power forecasting - subclassed keras model, trained with horovod
  mpirun -np 8 python train_model.py --epochs 100 --out runs/exp12
"""
import os
import argparse
import numpy as np
import tensorflow as tf
import keras
import horovod.tensorflow.keras as hvd

hvd.init()

p = argparse.ArgumentParser()
p.add_argument('--window', type=int, default=48)
p.add_argument('--horizon', type=int, default=12)
p.add_argument('--n_series', type=int, default=3000)
p.add_argument('--bs', type=int, default=128)
p.add_argument('--epochs', type=int, default=100)
p.add_argument('--lr', type=float, default=1e-3)
p.add_argument('--clip', type=float, default=1.0)
p.add_argument('--out', default='runs/default')
args = p.parse_args()


class SMAPE(keras.metrics.Metric):
    def __init__(self, name='smape', **kw):
        super().__init__(name=name, **kw)
        self.total = self.add_weight(name='total', initializer='zeros')
        self.count = self.add_weight(name='count', initializer='zeros')

    def update_state(self, y_true, y_pred, sample_weight=None):
        num = tf.abs(y_pred - y_true)
        den = (tf.abs(y_true) + tf.abs(y_pred)) / 2.0 + 1e-6
        v = tf.reshape(num / den, [-1])
        self.total.assign_add(tf.reduce_sum(v))
        self.count.assign_add(tf.cast(tf.size(v), tf.float32))

    def result(self):
        return 100.0 * self.total / tf.maximum(self.count, 1.0)

    def reset_state(self):
        self.total.assign(0.)
        self.count.assign(0.)


class InverseSqrtWarmup(keras.optimizers.schedules.LearningRateSchedule):
    def __init__(self, peak, warmup):
        self.peak = peak
        self.warmup = warmup

    def __call__(self, step):
        step = tf.cast(step, tf.float32) + 1.0
        w = float(self.warmup)
        return self.peak * tf.minimum(step / w, tf.sqrt(w / step))

    def get_config(self):
        return {'peak': self.peak, 'warmup': self.warmup}


class Forecaster(keras.Model):
    def __init__(self, horizon, units=64, clip=1.0):
        super().__init__()
        self.clip = clip
        self.gru1 = keras.layers.GRU(units, return_sequences=True)
        self.gru2 = keras.layers.GRU(units)
        self.head = keras.layers.Dense(horizon)

    def call(self, x, training=False):
        return self.head(self.gru2(self.gru1(x, training=training), training=training))

    def train_step(self, data):
        x, y = data
        with tf.GradientTape() as tape:
            y_pred = self(x, training=True)
            loss = self.compute_loss(x=x, y=y, y_pred=y_pred)
        grads = tape.gradient(loss, self.trainable_variables)
        grads, _ = tf.clip_by_global_norm(grads, self.clip)
        self.optimizer.apply_gradients(zip(grads, self.trainable_variables))
        for m in self.metrics:
            if m.name == 'loss':
                m.update_state(loss)
            else:
                m.update_state(y, y_pred)
        return {m.name: m.result() for m in self.metrics}


def make_windows(n, window, horizon, seed):
    r = np.random.RandomState(seed)
    t = np.arange(window + horizon)[None, :] + r.randint(0, 24, size=(n, 1))
    s = np.clip(np.sin(2 * np.pi * t / 24.0), 0, None) + 0.05 * r.randn(n, window + horizon)
    s = s.astype('float32')
    return s[:, :window, None], s[:, window:]


x_tr, y_tr = make_windows(args.n_series, args.window, args.horizon, 0)
x_va, y_va = make_windows(args.n_series // 5, args.window, args.horizon, 1)

train = tf.data.Dataset.from_tensor_slices((x_tr, y_tr)).shard(hvd.size(), hvd.rank())
train = train.shuffle(2048).batch(args.bs).repeat()
val = tf.data.Dataset.from_tensor_slices((x_va, y_va)).shard(hvd.size(), hvd.rank()).batch(args.bs)
steps = len(x_tr) // (args.bs * hvd.size())

model = Forecaster(args.horizon, clip=args.clip)
# NOTE: hvd.DistributedOptimizer + this schedule blew up on keras 3, plain Adam for now
opt = keras.optimizers.Adam(learning_rate=InverseSqrtWarmup(args.lr * hvd.size(), warmup=4 * steps))
model.compile(optimizer=opt, loss='mse', metrics=[SMAPE(), keras.metrics.MeanAbsoluteError(name='mae')])

cbs = [hvd.callbacks.BroadcastGlobalVariablesCallback(0)]
if hvd.rank() == 0:
    os.makedirs(args.out, exist_ok=True)
    cbs.append(keras.callbacks.ModelCheckpoint(os.path.join(args.out, 'best.weights.h5'),
                                               monitor='val_smape', save_best_only=True,
                                               save_weights_only=True))
    cbs.append(keras.callbacks.CSVLogger(os.path.join(args.out, 'log.csv')))

hist = model.fit(train, steps_per_epoch=steps, epochs=args.epochs, validation_data=val,
                 callbacks=cbs, verbose=2 if hvd.rank() == 0 else 0)

if hvd.rank() == 0:
    model.save_weights(os.path.join(args.out, 'last.weights.h5'))
    print('final val_smape %.3f  val_mae %.4f' % (hist.history['val_smape'][-1],
                                                  hist.history['val_mae'][-1]))
