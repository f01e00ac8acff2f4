"""Galaxy Zoo morphology regression with Keras + Horovod.

    horovodrun -np 4 python train.py --data-root /data/galaxy-zoo --epochs 40
"""
import argparse
import os

import horovod.tensorflow.keras as hvd
import keras

from galaxy.data import GalaxyZooData
from galaxy.model import MorphologyNet
from galaxy.runtime import setup_runtime


def parse_args():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--data-root", default="/data/galaxy-zoo")
    ap.add_argument("--image-size", type=int, default=128)
    ap.add_argument("--batch-size", type=int, default=32, help="per worker")
    ap.add_argument("--epochs", type=int, default=40)
    ap.add_argument("--base-lr", type=float, default=1e-3, help="learning rate for one worker")
    ap.add_argument("--warmup-epochs", type=int, default=3)
    ap.add_argument("--model-dir", default="models/galaxy")
    return ap.parse_args()


def main():
    args = parse_args()
    rank, world = setup_runtime()

    data = GalaxyZooData(args.data_root, args.image_size, args.batch_size)
    train_ds = data.train_dataset(num_shards=world, shard_index=rank)
    holdout_ds = data.val_dataset()

    net = MorphologyNet()
    lr = args.base_lr * world
    net.compile(optimizer=keras.optimizers.Adam(learning_rate=lr), loss="mse",
                metrics=[keras.metrics.RootMeanSquaredError(name="rmse")])

    hooks = [
        hvd.callbacks.BroadcastGlobalVariablesCallback(0),
        hvd.callbacks.MetricAverageCallback(),
        hvd.callbacks.LearningRateWarmupCallback(initial_lr=lr, warmup_epochs=args.warmup_epochs, verbose=0),
        keras.callbacks.ReduceLROnPlateau(monitor="val_rmse", factor=0.5, patience=4),
    ]
    if rank == 0:
        os.makedirs(args.model_dir, exist_ok=True)
        hooks.append(keras.callbacks.ModelCheckpoint(os.path.join(args.model_dir, "best.weights.h5"),
                                                     monitor="val_rmse", save_best_only=True,
                                                     save_weights_only=True))
        hooks.append(keras.callbacks.CSVLogger(os.path.join(args.model_dir, "history.csv")))

    net.fit(train_ds,
            steps_per_epoch=data.steps_per_epoch(world),
            epochs=args.epochs,
            validation_data=holdout_ds,
            callbacks=hooks,
            verbose=2 if rank == 0 else 0)


if __name__ == "__main__":
    main()
