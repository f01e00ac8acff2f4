"""Sen1Floods11 water segmentation from Sentinel-1 VV/VH chips (512x512), horovod + tf.keras fit.

Chips were exported to one big .npy per split by scripts/export_chips.py:
    {root}/{split}_x.npy  float16 (N, 512, 512, 2)   dB, clipped to [-30, 0]
    {root}/{split}_y.npy  uint8   (N, 512, 512, 1)   1 = water, 0 = dry, 255 = no data
"""
import argparse
import os
from datetime import datetime

import numpy as np
import tensorflow as tf
import horovod.tensorflow.keras as hvd

p = argparse.ArgumentParser()
p.add_argument('--root', default='/work/sen1floods11/npy')
p.add_argument('--epochs', type=int, default=40)
p.add_argument('--batch-size', type=int, default=8)
p.add_argument('--base-lr', type=float, default=5e-4)
p.add_argument('--warmup', type=int, default=5)
p.add_argument('--out', default='runs')
args = p.parse_args()

hvd.init()
for gpu in tf.config.experimental.list_physical_devices('GPU'):
    tf.config.experimental.set_memory_growth(gpu, True)
gpus = tf.config.experimental.list_physical_devices('GPU')
if gpus:
    tf.config.experimental.set_visible_devices(gpus[hvd.local_rank()], 'GPU')

run_dir = os.path.join(args.out, datetime.now().strftime('%Y%m%d-%H%M'))


def load_split(split):
    x = np.load(os.path.join(args.root, f'{split}_x.npy'), mmap_mode='r')
    y = np.load(os.path.join(args.root, f'{split}_y.npy'), mmap_mode='r')
    return x, y


def to_dataset(x, y, training):
    def gen():
        for i in range(len(x)):
            xi = (np.asarray(x[i], np.float32) + 15.0) / 15.0
            yi = np.asarray(y[i], np.float32)
            yield xi, np.where(yi == 255, 0, yi), (yi != 255).astype(np.float32)

    sig = (tf.TensorSpec((512, 512, 2), tf.float32), tf.TensorSpec((512, 512, 1), tf.float32),
           tf.TensorSpec((512, 512, 1), tf.float32))
    ds = tf.data.Dataset.from_generator(gen, output_signature=sig)
    if training:
        ds = ds.shuffle(256).repeat()
    return ds.batch(args.batch_size).prefetch(tf.data.AUTOTUNE)


x_tr, y_tr = load_split('train')
x_va, y_va = load_split('valid')
# contiguous block per worker, same length on every worker
per_worker = len(x_tr) // hvd.size()
lo = hvd.rank() * per_worker
train_ds = to_dataset(x_tr[lo:lo + per_worker], y_tr[lo:lo + per_worker], training=True)
val_ds = to_dataset(x_va, y_va, training=False)
steps_per_epoch = per_worker // args.batch_size


def down(x, f):
    x = tf.keras.layers.Conv2D(f, 3, padding='same', activation='relu')(x)
    x = tf.keras.layers.Conv2D(f, 3, padding='same', activation='relu')(x)
    return x, tf.keras.layers.MaxPool2D()(x)


def up(x, skip, f):
    x = tf.keras.layers.UpSampling2D()(x)
    x = tf.keras.layers.Concatenate()([x, skip])
    x = tf.keras.layers.Conv2D(f, 3, padding='same', activation='relu')(x)
    return tf.keras.layers.Conv2D(f, 3, padding='same', activation='relu')(x)


inp = tf.keras.Input((512, 512, 2))
s1, x = down(inp, 16)
s2, x = down(x, 32)
s3, x = down(x, 64)
x = tf.keras.layers.Conv2D(128, 3, padding='same', activation='relu')(x)
x = up(x, s3, 64)
x = up(x, s2, 32)
x = up(x, s1, 16)
out = tf.keras.layers.Conv2D(1, 1, activation='sigmoid')(x)
model = tf.keras.Model(inp, out)

scaled_lr = args.base_lr * hvd.size()
opt = hvd.DistributedOptimizer(tf.keras.optimizers.Adam(learning_rate=scaled_lr))
model.compile(optimizer=opt, loss='binary_crossentropy',
              metrics=[tf.keras.metrics.BinaryIoU(target_class_ids=[1], name='water_iou')])

callbacks = [
    hvd.callbacks.BroadcastGlobalVariablesCallback(0),
    hvd.callbacks.MetricAverageCallback(),
    hvd.callbacks.LearningRateWarmupCallback(warmup_epochs=args.warmup, verbose=1),
    tf.keras.callbacks.EarlyStopping(monitor='val_water_iou', mode='max', patience=8),
]
if hvd.rank() == 0:
    os.makedirs(run_dir, exist_ok=True)
    callbacks.append(tf.keras.callbacks.ModelCheckpoint(os.path.join(run_dir, 'ckpt-{epoch:02d}.keras')))
    callbacks.append(tf.keras.callbacks.TensorBoard(os.path.join(run_dir, 'tb')))

model.fit(train_ds, steps_per_epoch=steps_per_epoch, epochs=args.epochs, validation_data=val_ds,
          callbacks=callbacks, verbose=2 if hvd.rank() == 0 else 0)

if hvd.rank() == 0:
    model.save(os.path.join(run_dir, 'final.keras'))
