"""Elastic Keras training of the 12-lead ECG rhythm classifier.

    horovodrun -np 4 --min-np 2 --max-np 8 --host-discovery-script hosts.sh python train_elastic.py
Workers may be pre-empted; hvd.elastic.run restores the last committed state and re-syncs it
from rank 0 whenever the worker set changes.
"""
import argparse

import horovod.tensorflow.keras as hvd

from ecg.callbacks import elastic_callbacks
from ecg.config import RunConfig
from ecg.data import class_weights, describe, load_npz, worker_slice
from ecg.model import build_model, compile_model


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--data", default=RunConfig.data)
    ap.add_argument("--epochs", type=int, default=RunConfig.epochs)
    cfg = RunConfig(**vars(ap.parse_args()))

    hvd.init()
    from ecg import gpu
    gpu.pin_to_local_rank()

    x_train, y_train = load_npz(cfg.data, "train")
    x_val, y_val = load_npz(cfg.data, "val")
    weights = class_weights(y_train)
    if hvd.rank() == 0:
        print(describe(y_train, "train"), "|", describe(y_val, "val"))

    model = build_model(x_train.shape[1:], n_classes=int(y_train.max()) + 1)
    compile_model(model, cfg.lr * hvd.size())
    state = hvd.elastic.KerasState(model, batch=0, epoch=0)

    def on_state_reset():
        # new world size: rescale lr
        state.model.optimizer.learning_rate.assign(cfg.lr * hvd.size())

    state.register_reset_callbacks([on_state_reset])

    @hvd.elastic.run
    def train(state):
        xs, ys = worker_slice(x_train, y_train, hvd.rank(), hvd.size())   # re-sliced after every reset
        state.model.fit(xs, ys, batch_size=cfg.batch_size, initial_epoch=state.epoch, epochs=cfg.epochs,
                        class_weight=weights,
                        callbacks=elastic_callbacks(state, cfg.ckpt_path), verbose=2 if hvd.rank() == 0 else 0)

    train(state)

    if hvd.rank() == 0:
        loss, acc = model.evaluate(x_val, y_val, batch_size=256, verbose=0)
        print(f"validation (full set, rank 0): loss={loss:.4f} acc={acc:.4f}")


if __name__ == "__main__":
    main()
