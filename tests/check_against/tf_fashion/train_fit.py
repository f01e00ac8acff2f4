"""Train the classifier on Fashion-MNIST in one process, with Keras fit.

    python train_fit.py --epochs 2 --weights model.weights.h5
"""
import argparse

import keras

import data
import net


def parse():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--epochs", type=int, default=2)
    p.add_argument("--batch-size", type=int, default=32)
    p.add_argument("--lr", type=float, default=0.001)
    p.add_argument("--subset", type=int, default=4096)
    p.add_argument("--seed", type=int, default=7)
    p.add_argument("--weights", default="model.weights.h5")
    return p.parse_args()


def main():
    args = parse()
    keras.utils.set_random_seed(args.seed)
    train = data.train_set(args.subset).shuffle(args.subset, seed=args.seed).batch(args.batch_size)
    model = net.make()
    model.compile(optimizer=keras.optimizers.Adam(args.lr),
                  loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True), metrics=["accuracy"])
    model.fit(train, epochs=args.epochs)
    model.save_weights(args.weights)


if __name__ == "__main__":
    main()
