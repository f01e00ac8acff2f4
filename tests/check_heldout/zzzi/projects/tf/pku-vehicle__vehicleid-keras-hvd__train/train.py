"""VehicleID re-ID with Keras 3 + Horovod.

    horovodrun -np 4 python train.py --root /data/VehicleID_V1.0
"""
import argparse
import os

import tensorflow as tf
import keras
import horovod.tensorflow.keras as hvd

from vid_keras.data import read_list, decode, train_dataset
from vid_keras.model import build_embedding_model
from vid_keras.losses import BatchHardTriplet
from vid_keras.callbacks import RetrievalEval

ap = argparse.ArgumentParser()
ap.add_argument('--root', default='data/VehicleID_V1.0')
ap.add_argument('--weights', default='weights/resnet50_notop.weights.h5')
ap.add_argument('--P', type=int, default=18)
ap.add_argument('--K', type=int, default=4)
ap.add_argument('--lr', type=float, default=3e-4)
ap.add_argument('--epochs', type=int, default=80)
ap.add_argument('--warmup', type=int, default=5)
ap.add_argument('--out', default='runs/vehicleid')
args = ap.parse_args()

hvd.init()
for g in tf.config.list_physical_devices('GPU'):
    tf.config.experimental.set_memory_growth(g, True)
gpus = tf.config.list_physical_devices('GPU')
if gpus:
    tf.config.set_visible_devices(gpus[hvd.local_rank()], 'GPU')

paths, vids = read_list(args.root, 'train_list.txt')
id_map = {v: i for i, v in enumerate(sorted(set(vids)))}
labels = [id_map[v] for v in vids]
train_ds, steps = train_dataset(paths, labels, args.P, args.K, hvd.rank(), hvd.size(), args.epochs)
train_ds = train_ds.map(lambda x, y: (x, (y, y)))

tp, tv = read_list(args.root, 'test_list_800.txt')
test_ds = (tf.data.Dataset.from_tensor_slices((tp, tv)).shard(hvd.size(), hvd.rank())
           .map(lambda p, v: (decode(p), v)).batch(64))

model = build_embedding_model(len(id_map), args.weights)
scaled_lr = args.lr * hvd.size()
opt = hvd.DistributedOptimizer(keras.optimizers.Adam(learning_rate=scaled_lr))
model.compile(optimizer=opt,
              loss=[BatchHardTriplet(0.3), keras.losses.SparseCategoricalCrossentropy(from_logits=True)],
              metrics=[[], ['accuracy']])

callbacks = [
    hvd.callbacks.BroadcastGlobalVariablesCallback(0),
    hvd.callbacks.MetricAverageCallback(),
    hvd.callbacks.LearningRateWarmupCallback(initial_lr=scaled_lr, warmup_epochs=args.warmup,
                                             steps_per_epoch=steps, verbose=1),
    hvd.callbacks.LearningRateScheduleCallback(initial_lr=scaled_lr, multiplier=0.1, start_epoch=40,
                                               end_epoch=60),
    hvd.callbacks.LearningRateScheduleCallback(initial_lr=scaled_lr, multiplier=0.01, start_epoch=60),
    RetrievalEval(test_ds, every=5),
]
if hvd.rank() == 0:
    os.makedirs(args.out, exist_ok=True)
    callbacks.append(keras.callbacks.ModelCheckpoint(os.path.join(args.out, 'ep{epoch:03d}.weights.h5'),
                                                     save_weights_only=True))

model.fit(train_ds, steps_per_epoch=steps, epochs=args.epochs, callbacks=callbacks,
          verbose=2 if hvd.rank() == 0 else 0)
