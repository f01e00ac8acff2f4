"""Road segmentation from aerial tiles -- GradientTape loop with Horovod.

    sbatch --ntasks=8 --gpus-per-node=4 --wrap "srun python train.py --epochs 80"
"""
import time

import numpy as np
import tensorflow as tf
import keras
import horovod.tensorflow as hvd

from roadseg.config import parse_config
from roadseg.data import make_dataset, tile_files
from roadseg.gpu import pin_gpu
from roadseg.model import road_unet
from roadseg.steps import iou_step, make_train_step, weighted_bce


def run(cfg):
    hvd.init()
    pin_gpu(hvd.local_rank())
    is_chief = hvd.rank() == 0

    per_worker_batch = cfg.global_batch // hvd.size()
    train_files, val_files = tile_files(cfg.data_dir, "train"), tile_files(cfg.data_dir, "val")
    train_ds = make_dataset(train_files, per_worker_batch, hvd.rank(), hvd.size(), cfg.img_size, True, cfg.seed)
    val_ds = make_dataset(val_files, per_worker_batch, hvd.rank(), hvd.size(), cfg.img_size, False, cfg.seed)
    steps_per_epoch = len(train_files) // cfg.global_batch
    val_steps = len(val_files) // cfg.global_batch

    model = road_unet(cfg.img_size, cfg.base_filters)
    # global batch is fixed, so the lr is the one tuned for it (no scaling by hvd.size())
    optimizer = keras.optimizers.Adam(learning_rate=cfg.lr)
    train_step = make_train_step(model, optimizer, weighted_bce(cfg.pos_weight))

    ckpt = tf.train.Checkpoint(model=model, optimizer=optimizer)
    manager = tf.train.CheckpointManager(ckpt, cfg.ckpt_dir, max_to_keep=cfg.keep_ckpts)

    it = iter(train_ds)
    for epoch in range(cfg.epochs):
        t0 = time.time()
        losses = []
        for step in range(steps_per_epoch):
            x, y = next(it)
            losses.append(float(train_step(x, y, epoch == 0 and step == 0)))
        ious = [float(iou_step(model, x, y)) for x, y in val_ds.take(val_steps)]
        # every worker has val_steps equal batches: the mean of the workers' means is the global mean
        val_iou = hvd.allreduce(tf.constant(np.mean(ious) if ious else 0.0), op=hvd.Average, name="val_iou")
        train_loss = hvd.allreduce(tf.constant(np.mean(losses)), op=hvd.Average, name="train_loss")
        if is_chief:
            print(f"epoch {epoch + 1}/{cfg.epochs} loss {float(train_loss):.4f} val IoU {float(val_iou):.4f} "
                  f"({time.time() - t0:.0f}s)", flush=True)
            manager.save(checkpoint_number=epoch + 1)


if __name__ == "__main__":
    run(parse_config())
