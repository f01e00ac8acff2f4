"""Train a 1-D FNO surrogate of gyrokinetic heat-flux profiles (TF2 tape loop + Horovod).

Stellar:  srun -n 8 python train.py --config configs/gk_itg.yaml
"""
import argparse
import os
import time

import keras
import tensorflow as tf
import horovod.tensorflow as hvd

from fno.config import TrainConfig
from fno.data import load_shard
from fno.layers import build_fno
from fno.step import make_train_step


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--config", default="configs/gk_itg.yaml")
    ap.add_argument("--epochs", type=int)
    ap.add_argument("--batch-size", type=int)
    a = ap.parse_args()
    cfg = TrainConfig.from_yaml(a.config, epochs=a.epochs, batch_size=a.batch_size)

    hvd.init()
    gpus = tf.config.list_physical_devices("GPU")
    for g in gpus:
        tf.config.experimental.set_memory_growth(g, True)
    if gpus:
        tf.config.set_visible_devices(gpus[hvd.local_rank()], "GPU")

    ds, steps = load_shard(cfg.data_path, cfg.batch_size)
    model = build_fno(width=cfg.width, modes=cfg.modes, n_layers=cfg.n_layers)
    opt = keras.optimizers.Adam(learning_rate=cfg.lr * hvd.size())
    train_step = make_train_step(model, opt, cfg)

    first = True
    for epoch in range(cfg.epochs):
        t0, total = time.time(), 0.0
        for x, y in ds:
            loss = train_step(x, y)
            if first:
                hvd.broadcast_variables(model.variables, root_rank=0)
                hvd.broadcast_variables(opt.variables, root_rank=0)
                first = False
            total += float(loss)
        epoch_loss = hvd.allreduce(tf.constant(total / max(steps, 1)), name="epoch_loss")
        if hvd.rank() == 0:
            print(f"epoch {epoch:4d}  mse {float(epoch_loss):.4e}  {time.time() - t0:.1f}s", flush=True)
            if (epoch + 1) % 10 == 0:
                os.makedirs(cfg.ckpt_dir, exist_ok=True)
                model.save_weights(os.path.join(cfg.ckpt_dir, f"fno_e{epoch + 1:04d}.weights.h5"))


if __name__ == "__main__":
    main()
