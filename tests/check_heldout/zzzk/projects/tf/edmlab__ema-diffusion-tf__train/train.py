"""Train an EDM-style denoiser with TF2/Keras 3 and horovod.

This file is both a CLI and a library: `run(hp)` is the per-worker training function
(sweeps import it), and `python train.py --np 4` spawns 4 local workers through horovod.run.
Under horovodrun/mpirun just call `python train.py`.
"""
import argparse
import json
import os
import sys

import tensorflow as tf
import horovod
import horovod.tensorflow as hvd

from edm_tf.hparams import HParams
from edm_tf.hvd_setup import init_and_pin
from edm_tf.pipeline import image_dataset
from edm_tf.nets import build_denoiser
from edm_tf.trainer import EDMTrainer
from edm_tf import ckpt as ckpt_lib


def run(hp):
    init_and_pin()
    ds = image_dataset(hp.data, hp.micro_batch * hp.grad_accum, hvd.rank(), hvd.size())
    net = build_denoiser(hp.resolution, hp.channels)
    opt = tf.keras.optimizers.Adam(learning_rate=hp.lr * hvd.size(), beta_1=0.9, beta_2=0.99)
    trainer = EDMTrainer(hp, net, opt)

    manager = ckpt_lib.make_manager(hp.workdir, net, opt, trainer.ema_net)
    start = ckpt_lib.restore_latest(manager)
    trainer.sync_initial_state(start)

    for step, (images,) in zip(range(trainer.step, hp.total_steps), ds):
        loss = trainer.train_step(images)
        if step % hp.log_every == 0:
            mean_loss = hvd.allreduce(loss, op=hvd.Average, name="loss")
            if hvd.rank() == 0:
                print(json.dumps({"step": step, "loss": float(mean_loss)}), flush=True)
        if step > 0 and step % hp.save_every == 0 and hvd.rank() == 0:
            manager.save(checkpoint_number=step)
    return trainer.step


def main(argv=None):
    ap = argparse.ArgumentParser()
    ap.add_argument("--hparams", default="{}", help="json overrides")
    ap.add_argument("--np", type=int, default=0, help="spawn this many local workers via horovod.run")
    a = ap.parse_args(argv)
    hp = HParams.from_json(a.hparams)
    if a.np > 0:
        horovod.run(run, args=(hp,), np=a.np, use_gloo=True)
    else:
        run(hp)


if __name__ == "__main__":
    sys.exit(main())
