"""Train the classifier on Fashion-MNIST with Horovod, with Keras fit.

    horovodrun -np 4 python train_fit_hvd.py --epochs 2 --weights model.weights.h5
"""
import argparse

import horovod.tensorflow.keras as hvd
import keras

import data
import net


def parse():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--epochs", type=int, default=2)
    p.add_argument("--batch-size", type=int, default=32, help="per worker")
    p.add_argument("--lr", type=float, default=0.001, help="for one worker; scaled by the number of workers")
    p.add_argument("--subset", type=int, default=4096)
    p.add_argument("--seed", type=int, default=7)
    p.add_argument("--weights", default="model.weights.h5")
    return p.parse_args()


def main():
    args = parse()
    hvd.init()
    keras.utils.set_random_seed(args.seed)
    train = (data.train_set(args.subset).shard(hvd.size(), hvd.rank())
             .shuffle(args.subset, seed=args.seed).batch(args.batch_size))
    model = net.make()
    opt = hvd.DistributedOptimizer(keras.optimizers.Adam(args.lr * hvd.size()))
    model.compile(optimizer=opt, loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True),
                  metrics=["accuracy"])
    callbacks = [hvd.callbacks.BroadcastGlobalVariablesCallback(0), hvd.callbacks.MetricAverageCallback()]
    model.fit(train, epochs=args.epochs, callbacks=callbacks, verbose=1 if hvd.rank() == 0 else 0)
    if hvd.rank() == 0:
        model.save_weights(args.weights)


if __name__ == "__main__":
    main()
