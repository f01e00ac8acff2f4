import time

import tensorflow as tf
import keras
import horovod.tensorflow as hvd

from photoz.config import parse_config
from photoz.data import split, to_dataset
from photoz.model import build_mlp
from photoz.trainer import Trainer
from photoz.metrics import photoz_scores


def main():
    cfg = parse_config()
    hvd.init()
    gpus = tf.config.list_physical_devices("GPU")
    for gpu in gpus:
        tf.config.experimental.set_memory_growth(gpu, True)
    if gpus:
        tf.config.set_visible_devices(gpus[hvd.local_rank()], "GPU")

    (xtr, ztr), (xva, zva) = split(cfg)
    train_ds = to_dataset(xtr, ztr, cfg.batch_size, hvd.size(), hvd.rank(), train=True)
    val_ds = to_dataset(xva, zva, 4096, hvd.size(), hvd.rank(), train=False)

    model = build_mlp(xtr.shape[1], cfg.hidden, cfg.n_bins)
    opt = keras.optimizers.Adam(learning_rate=cfg.lr * hvd.size())
    trainer = Trainer(model, opt, cfg.n_bins, cfg.z_max)

    ckpt = tf.train.Checkpoint(model=model, optimizer=opt)
    manager = tf.train.CheckpointManager(ckpt, cfg.ckpt_dir, max_to_keep=3)

    best = float("inf")
    first = True
    for epoch in range(cfg.epochs):
        t0 = time.time()
        for x, z in train_ds:
            loss = trainer.train_step(x, z, first)
            first = False
        z_phot, z_spec = trainer.predict_z(val_ds)
        scores = photoz_scores(z_phot, z_spec)
        if hvd.rank() == 0:
            print(f"epoch {epoch:02d} loss={float(loss):.4f} sigma_nmad={scores['sigma_nmad']:.4f} "
                  f"outliers={scores['outlier_frac']:.3%} bias={scores['bias']:+.4f} "
                  f"[{time.time() - t0:.0f}s]", flush=True)
            if scores["sigma_nmad"] < best:
                best = scores["sigma_nmad"]
                manager.save(checkpoint_number=epoch)


if __name__ == "__main__":
    main()
