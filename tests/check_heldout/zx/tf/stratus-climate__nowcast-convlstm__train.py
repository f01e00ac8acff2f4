"""Radar precipitation nowcasting (ConvLSTM), data-parallel with Horovod.

The global batch is fixed in the config (the lr was tuned for it on one node);
each worker takes global_batch / world_size samples per step.
"""
import argparse
import math
import sys

import tensorflow as tf
import horovod.tensorflow as hvd

from nowcast.config import ExperimentConfig
from nowcast.data import RadarSequences
from nowcast.loop import LoopState, run_validation, train_one_step
from nowcast.model import ConvLSTMNowcaster
from nowcast.utils import get_logger, set_seed


def main(argv=None):
    ap = argparse.ArgumentParser()
    ap.add_argument("config", nargs="?", default="experiments/radar_1h.json")
    ap.add_argument("--run-dir", default="runs/nowcast")
    opts = ap.parse_args(argv)
    cfg = ExperimentConfig.load(opts.config)

    hvd.init()
    for i, dev in enumerate(tf.config.list_physical_devices("GPU")):
        if i == hvd.local_rank():
            tf.config.experimental.set_memory_growth(dev, True)
            tf.config.set_visible_devices(dev, "GPU")
    set_seed(cfg.seed)
    log = get_logger("nowcast", hvd.rank())

    if cfg.global_batch % hvd.size():
        log.error("global_batch %d not divisible by %d workers", cfg.global_batch, hvd.size())
        return 1
    local_batch = cfg.global_batch // hvd.size()

    radar = RadarSequences(cfg.data_file, cfg.input_frames, cfg.output_frames)
    train_ds = radar.pipeline("train", local_batch, part=hvd.rank(), num_parts=hvd.size())
    val_ds = radar.pipeline("val", local_batch, part=hvd.rank(), num_parts=hvd.size())
    steps_per_epoch = radar.num_sequences("train") // cfg.global_batch

    model = ConvLSTMNowcaster(filters=cfg.filters, out_frames=cfg.output_frames)
    optimizer = tf.keras.optimizers.Adam(learning_rate=cfg.lr, clipnorm=cfg.clipnorm)
    state = LoopState(model=model, optimizer=optimizer, run_dir=opts.run_dir)
    start = state.maybe_restore()

    train_iter = iter(train_ds)
    for epoch in range(start, cfg.epochs):
        for step in range(steps_per_epoch):
            loss = train_one_step(model, optimizer, *next(train_iter))
            if step == 0 and epoch == start:
                hvd.broadcast_variables(model.variables, root_rank=0)
                hvd.broadcast_variables(optimizer.variables, root_rank=0)
        mse, csi = run_validation(model, val_ds, threshold=cfg.csi_threshold)
        log.info("epoch %d  train_mse %.5f  val_mse %.5f  val_csi %.4f  rmse %.3f mm/h",
                 epoch, float(loss), mse, csi, math.sqrt(mse) * cfg.rain_scale)
        if hvd.rank() == 0:
            state.save(epoch + 1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
