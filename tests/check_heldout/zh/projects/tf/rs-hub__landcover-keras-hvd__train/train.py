"""LandCover.ai semantic segmentation with a U-Net, multi-GPU via horovod + Keras fit.

horovodrun -np 4 python train.py --config configs/unet_r32.json train.epochs=80
"""
import argparse
import os

import tensorflow as tf
from tensorflow import keras
import horovod.tensorflow.keras as hvd

from lcnet import load_config, setup_env
from lcnet.data import build_dataset
from lcnet.models import build_unet


class SparseMeanIoU(keras.metrics.MeanIoU):
    def update_state(self, y_true, y_pred, sample_weight=None):
        return super().update_state(y_true, tf.argmax(y_pred, axis=-1), sample_weight)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--config', default='configs/unet_r32.json')
    ap.add_argument('overrides', nargs='*')
    args = ap.parse_args()
    cfg = load_config(args.config, args.overrides)

    rank, size = setup_env(cfg['train']['mixed_precision'])
    verbose = 2 if rank == 0 else 0

    train_ds, n_train = build_dataset(cfg, 'train', training=True)
    val_ds, n_val = build_dataset(cfg, 'val', training=False)

    m = cfg['model']
    model = build_unet(cfg['data']['tile'], m['filters'], m['depth'], m['num_classes'], m['dropout'])
    lr = cfg['train']['lr'] * size
    opt = hvd.DistributedOptimizer(keras.optimizers.Adam(learning_rate=lr))
    model.compile(optimizer=opt,
                  loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True),
                  metrics=['accuracy', SparseMeanIoU(num_classes=m['num_classes'], name='miou')])

    callbacks = [
        hvd.callbacks.BroadcastGlobalVariablesCallback(0),
        hvd.callbacks.MetricAverageCallback(),
        hvd.callbacks.LearningRateWarmupCallback(initial_lr=lr, warmup_epochs=cfg['train']['warmup_epochs'],
                                                 verbose=verbose),
        keras.callbacks.ReduceLROnPlateau(monitor='val_loss', factor=0.5, patience=5, min_lr=1e-6),
    ]
    if rank == 0:
        os.makedirs(cfg['output'], exist_ok=True)
        callbacks += [
            keras.callbacks.ModelCheckpoint(os.path.join(cfg['output'], 'best.keras'),
                                            monitor='val_miou', mode='max', save_best_only=True),
            keras.callbacks.CSVLogger(os.path.join(cfg['output'], 'history.csv')),
        ]
        print(f'{n_train} train tiles, {n_val} val tiles, {size} workers, lr {lr:g}')

    model.fit(train_ds, validation_data=val_ds, epochs=cfg['train']['epochs'],
              callbacks=callbacks, verbose=verbose)


if __name__ == '__main__':
    main()
