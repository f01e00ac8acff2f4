"""CIFAR-100 with Keras 3 + Horovod. Model picked by name from trainlib.models."""
import argparse

import keras
import tensorflow as tf
import horovod.tensorflow.keras as hvd

from trainlib import load_cifar100, build_model, MODEL_NAMES, build_callbacks


def get_args():
    parser = argparse.ArgumentParser(formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    parser.add_argument('--model', default='resnet20', choices=sorted(MODEL_NAMES))
    parser.add_argument('--epochs', type=int, default=90)
    parser.add_argument('--batch-size', type=int, default=128, help='per worker')
    parser.add_argument('--lr', type=float, default=0.05, help='single worker learning rate')
    parser.add_argument('--warmup-epochs', type=int, default=5)
    parser.add_argument('--fp16-allreduce', action='store_true')
    parser.add_argument('--ckpt-dir', default='./ckpt')
    return parser.parse_args()


def main():
    args = get_args()
    hvd.init()
    gpus = tf.config.experimental.list_physical_devices('GPU')
    for gpu in gpus:
        tf.config.experimental.set_memory_growth(gpu, True)
    if gpus:
        tf.config.experimental.set_visible_devices(gpus[hvd.local_rank()], 'GPU')

    train_ds, test_ds = load_cifar100(args.batch_size)
    model = build_model(args.model)

    scaled_lr = args.lr * hvd.size()
    opt = keras.optimizers.SGD(learning_rate=scaled_lr, momentum=0.9, nesterov=True)
    opt = hvd.DistributedOptimizer(
        opt, compression=hvd.Compression.fp16 if args.fp16_allreduce else hvd.Compression.none)
    model.compile(optimizer=opt,
                  loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True),
                  metrics=['accuracy'])
    if hvd.rank() == 0:
        model.summary()

    model.fit(train_ds, epochs=args.epochs, validation_data=test_ds,
              callbacks=build_callbacks(args, scaled_lr),
              verbose=2 if hvd.rank() == 0 else 0)

    loss, acc = model.evaluate(test_ds, verbose=0)
    if hvd.rank() == 0:
        print('test loss %.4f  test accuracy %.4f' % (loss, acc))


if __name__ == '__main__':
    main()
