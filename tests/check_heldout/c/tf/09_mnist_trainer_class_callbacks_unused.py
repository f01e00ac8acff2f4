import argparse
import os

import tensorflow as tf
import horovod.tensorflow.keras as hvd
from tensorflow.keras.callbacks import EarlyStopping, ModelCheckpoint


class Trainer:
    def __init__(self, args):
        self.args = args
        self.out_dir = args.out_dir
        self.verbose = 1 if hvd.rank() == 0 else 0
        self.train_ds, self.test_ds, self.steps = self._data()
        self.model = self._model()

    def _data(self):
        (x_tr, y_tr), (x_te, y_te) = tf.keras.datasets.mnist.load_data()
        x_tr = (x_tr / 255.0).astype("float32")[..., None]
        x_te = (x_te / 255.0).astype("float32")[..., None]
        train = (tf.data.Dataset.from_tensor_slices((x_tr, y_tr))
                 .shard(hvd.size(), hvd.rank())
                 .shuffle(10000)
                 .batch(self.args.batch_size)
                 .repeat())
        test = tf.data.Dataset.from_tensor_slices((x_te, y_te)).batch(1000)
        steps = len(x_tr) // (self.args.batch_size * hvd.size())
        return train, test, steps

    def _model(self):
        model = tf.keras.Sequential([
            tf.keras.layers.Input((28, 28, 1)),
            tf.keras.layers.Conv2D(32, 3, activation="relu"),
            tf.keras.layers.MaxPooling2D(),
            tf.keras.layers.Conv2D(64, 3, activation="relu"),
            tf.keras.layers.MaxPooling2D(),
            tf.keras.layers.Flatten(),
            tf.keras.layers.Dense(128, activation="relu"),
            tf.keras.layers.Dense(10, activation="softmax"),
        ])
        opt = tf.keras.optimizers.RMSprop(learning_rate=self.args.lr * hvd.size())
        model.compile(optimizer=hvd.DistributedOptimizer(opt),
                      loss="sparse_categorical_crossentropy",
                      metrics=["accuracy"])
        return model

    def build_callbacks(self):
        cbs = [
            hvd.callbacks.BroadcastGlobalVariablesCallback(0),
            hvd.callbacks.MetricAverageCallback(),
        ]
        if hvd.rank() == 0:
            cbs.append(ModelCheckpoint(os.path.join(self.out_dir, "ckpt-{epoch:02d}.h5"),
                                       save_weights_only=True))
        return cbs

    def train(self):
        callbacks = self.build_callbacks()
        early_stop = EarlyStopping(monitor="val_loss", patience=3, restore_best_weights=True)
        history = self.model.fit(self.train_ds,
                                 steps_per_epoch=self.steps,
                                 epochs=self.args.epochs,
                                 validation_data=self.test_ds,
                                 callbacks=[early_stop],
                                 verbose=self.verbose)
        if self.verbose:
            print("registered callbacks:", [type(c).__name__ for c in callbacks])
        return history

    def evaluate(self):
        loss, acc = self.model.evaluate(self.test_ds, verbose=0)
        if hvd.rank() == 0:
            print(f"test loss {loss:.4f}  test acc {acc:.4f}")
        return acc

    def save(self):
        if hvd.rank() == 0:
            self.model.save(os.path.join(self.out_dir, "mnist_final.h5"))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--batch-size", type=int, default=64)
    parser.add_argument("--epochs", type=int, default=20)
    parser.add_argument("--lr", type=float, default=1e-3)
    parser.add_argument("--out-dir", default="out_mnist")
    args = parser.parse_args()

    hvd.init()
    os.makedirs(args.out_dir, exist_ok=True)

    trainer = Trainer(args)
    trainer.train()
    trainer.evaluate()
    trainer.save()


if __name__ == "__main__":
    main()
