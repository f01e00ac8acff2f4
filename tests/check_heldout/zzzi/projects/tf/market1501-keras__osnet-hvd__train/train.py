# OSNet (x1.0) on Market-1501, Keras 3 + Horovod.
#   horovodrun -np 8 -H host1:4,host2:4 python train.py --root /data/market1501
import argparse
import os

import keras
import horovod.tensorflow.keras as hvd

from osnet_tf import make_split, osnet_like, compile_for_training, make_optimizer
from osnet_tf.logs import CSVEpochLogger


def get_args():
    p = argparse.ArgumentParser()
    p.add_argument('--root', default='data/market1501')
    p.add_argument('--imagenet-weights', default='pretrained/osnet_x1_0_imagenet.weights.h5')
    p.add_argument('--batch-size', type=int, default=64, help='per worker')
    p.add_argument('--lr', type=float, default=0.0015)
    p.add_argument('--epochs', type=int, default=150)
    p.add_argument('--fixbase-epochs', type=int, default=0)
    p.add_argument('--workdir', default='work_dirs/osnet_market')
    return p.parse_args()


def main():
    args = get_args()
    hvd.init()
    import tensorflow as tf
    gpus = tf.config.list_physical_devices('GPU')
    for g in gpus:
        tf.config.experimental.set_memory_growth(g, True)
    if gpus:
        tf.config.set_visible_devices(gpus[hvd.local_rank()], 'GPU')

    train_ds, steps, n_ids = make_split(args.root, args.batch_size, training=True)
    val_ds, _, _ = make_split(args.root, args.batch_size, training=False)

    model = osnet_like(n_ids, args.imagenet_weights)
    lr = args.lr * hvd.size()
    opt = hvd.DistributedOptimizer(make_optimizer(lr))
    compile_for_training(model, lr)

    cbs = [
        hvd.callbacks.BroadcastGlobalVariablesCallback(0),
        hvd.callbacks.LearningRateWarmupCallback(initial_lr=lr, warmup_epochs=10, steps_per_epoch=steps),
        keras.callbacks.LearningRateScheduler(
            lambda e, cur: lr * (0.1 if e >= 60 else 1.0) * (0.1 if e >= 120 else 1.0) if e >= 10 else cur),
    ]
    if hvd.rank() == 0:
        os.makedirs(args.workdir, exist_ok=True)
        cbs += [keras.callbacks.ModelCheckpoint(os.path.join(args.workdir, 'best.weights.h5'),
                                                monitor='val_sparse_categorical_accuracy', mode='max',
                                                save_best_only=True, save_weights_only=True),
                CSVEpochLogger(os.path.join(args.workdir, 'history.csv'))]

    model.fit(train_ds, steps_per_epoch=steps, epochs=args.epochs, validation_data=val_ds,
              callbacks=cbs, verbose=1 if hvd.rank() == 0 else 0)
    if hvd.rank() == 0:
        print('final val:', model.evaluate(val_ds, verbose=0, return_dict=True))


if __name__ == '__main__':
    main()
