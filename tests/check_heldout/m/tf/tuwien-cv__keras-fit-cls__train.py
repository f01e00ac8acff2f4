"""Image classification with Keras Model.fit on Horovod (TF 2 / Keras 3).

    horovodrun -np 8 python train.py --train 'gs://bucket/train-*' --val 'gs://bucket/val-*'
"""
import argparse
import math

import horovod.tensorflow.keras as hvd

hvd.init()

from clsfit import configure_devices  # noqa: E402

# before TensorFlow initialises any device
configure_devices(hvd.local_rank(), hvd.local_size())

import keras  # noqa: E402

from clsfit.callbacks import build_callbacks  # noqa: E402
from clsfit.data import make_dataset  # noqa: E402
from clsfit.model import build_resnet  # noqa: E402


def get_args():
    p = argparse.ArgumentParser()
    p.add_argument("--train", default="data/tfrecords/train-*")
    p.add_argument("--val", default="data/tfrecords/val-*")
    p.add_argument("--num-train", type=int, default=94000)
    p.add_argument("--num-val", type=int, default=6000)
    p.add_argument("--num-classes", type=int, default=200)
    p.add_argument("--size", type=int, default=160)
    p.add_argument("--batch-size", type=int, default=64, help="per worker")
    p.add_argument("--base-lr", type=float, default=0.05)
    p.add_argument("--warmup-epochs", type=int, default=3)
    p.add_argument("--epochs", type=int, default=60)
    p.add_argument("--resume", default=None, help="weights file to start from")
    p.add_argument("--out-dir", default="runs/resnet18ish")
    return p.parse_args()


def main():
    args = get_args()
    global_batch = args.batch_size * hvd.size()
    steps_per_epoch = math.ceil(args.num_train / global_batch)
    val_steps = args.num_val // global_batch
    scaled_lr = args.base_lr * hvd.size()

    train_ds = make_dataset(args.train, args.batch_size, args.size, True, hvd.size(), hvd.rank())
    val_ds = make_dataset(args.val, args.batch_size, args.size, False, hvd.size(), hvd.rank())

    model = build_resnet(args.num_classes, args.size)
    if args.resume and hvd.rank() == 0:
        model.load_weights(args.resume)

    opt = keras.optimizers.SGD(learning_rate=scaled_lr, momentum=0.9, nesterov=True)
    model.compile(optimizer=hvd.DistributedOptimizer(opt),
                  loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True),
                  metrics=["accuracy", keras.metrics.SparseTopKCategoricalAccuracy(5, name="top5")])

    model.fit(train_ds, epochs=args.epochs, steps_per_epoch=steps_per_epoch,
              validation_data=val_ds, validation_steps=val_steps,
              callbacks=build_callbacks(args, scaled_lr, steps_per_epoch),
              verbose=1 if hvd.rank() == 0 else 0)


if __name__ == "__main__":
    main()
