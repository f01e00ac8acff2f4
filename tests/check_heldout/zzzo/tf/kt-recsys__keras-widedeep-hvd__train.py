"""Wide & Deep CTR on Taobao display-ad logs, Keras 3 + horovod.

horovodrun -np 8 -H w1:4,w2:4 python train.py --train_pattern ... --epochs 5
"""
import keras
import horovod.tensorflow.keras as hvd

from wdl.config import get_config
from wdl import hvd_setup, inputs
from wdl.model import build_wide_deep
from wdl.callbacks import make_callbacks


def main():
    cfg = get_config()
    rank, size = hvd_setup.init()

    train_ds = inputs.train_dataset(cfg.train_pattern, cfg.batch_size, rank, size)
    eval_ds = inputs.eval_dataset(cfg.eval_pattern, cfg.batch_size)
    steps_per_epoch = cfg.train_rows // (cfg.batch_size * size)

    model = build_wide_deep(cfg.hash_bins, cfg.embed_dim, [int(u) for u in cfg.dnn.split(",")])
    scaled_lr = cfg.lr * size
    opt = hvd.DistributedOptimizer(keras.optimizers.Adam(learning_rate=scaled_lr))
    model.compile(optimizer=opt, loss="binary_crossentropy",
                  metrics=[keras.metrics.AUC(name="auc"), keras.metrics.BinaryCrossentropy(name="logloss")])
    if rank == 0:
        model.summary()

    model.fit(train_ds,
              epochs=cfg.epochs,
              steps_per_epoch=steps_per_epoch,
              validation_data=eval_ds,
              callbacks=make_callbacks(cfg, scaled_lr),
              verbose=2 if rank == 0 else 0)


if __name__ == "__main__":
    main()
