"""BARRA2 6-hourly rollout emulator.

    qsub -l ncpus=48,ngpus=4,walltime=48:00:00 run.pbs     # run.pbs: mpirun -np $NGPUS python main.py configs/base.yaml

main.py only holds `train(cfg)`; option parsing and Horovod start-up are in bomroll.cli,
which calls back into it.
"""
import time

import numpy as np
import tensorflow as tf
import horovod.tensorflow as hvd

from bomroll import cli, nets, restart
from bomroll.fields import FieldArchive
from bomroll.scores import LatWeightedRMSE


def rank_times(t0, t1, rollout, epoch, seed):
    """Same permutation on every rank, cut to a multiple of size, column `rank` of the reshaped array."""
    t = np.arange(t0, t1 - rollout)
    np.random.default_rng(seed + epoch).shuffle(t)
    n = len(t) // hvd.size() * hvd.size()
    return t[:n].reshape(-1, hvd.size())[:, hvd.rank()]


def batches(arch, times, rollout, bs, mean, std):
    for i in range(0, len(times) - bs + 1, bs):
        seq = np.stack([arch.window(int(t), rollout + 1) for t in times[i:i + bs]])
        yield tf.constant((seq - mean) / std, tf.float32)


def train(cfg):
    arch = FieldArchive(cfg["data_path"], cfg["steps_per_year"])
    tr0, tr1 = arch.year_range(*cfg["train_years"])
    va0, va1 = arch.year_range(*cfg["valid_years"])
    mean, std = arch.norm_stats(tr0, tr1)
    _, ny, nx, nv = arch.x.shape
    K = cfg["rollout"]

    model = nets.build(ny, nx, nv, cfg["hidden"])
    opt = tf.keras.optimizers.Adam(learning_rate=cfg["lr"] * hvd.size())
    ckpt, manager = restart.make_manager(model, opt, cfg["ckpt_dir"])
    start_epoch, step = restart.restore_and_sync(ckpt, manager, model, opt)
    clock = restart.WallClock(cfg["walltime_hours"])
    rmse = LatWeightedRMSE(np.linspace(-10.0, -45.0, ny), nv)

    @tf.function
    def train_step(seq):
        with tf.GradientTape() as tape:
            x, loss = seq[:, 0], 0.0
            for k in range(1, K + 1):
                x = model(x, training=True)
                loss += tf.reduce_mean(tf.square(x - seq[:, k]))
            loss /= K
        tape = hvd.DistributedGradientTape(tape)
        grads = tape.gradient(loss, model.trainable_variables)
        opt.apply_gradients(zip(grads, model.trainable_variables))
        return loss

    @tf.function
    def rollout(seq):
        x = seq[:, 0]
        for k in range(1, K + 1):
            x = model(x, training=False)
        return x

    for epoch in range(start_epoch, cfg["epochs"]):
        t_ep = time.time()
        for seq in batches(arch, rank_times(tr0, tr1, K, epoch, cfg["seed"]), K, cfg["batch"], mean, std):
            loss = train_step(seq)
            step += 1
            if step % 200 == 0:
                if hvd.rank() == 0:
                    print("epoch %d step %d loss %.4f" % (epoch, step, float(loss)), flush=True)
                if clock.out_of_time():
                    ckpt.step.assign(step)
                    if hvd.rank() == 0:
                        manager.save()
                    return "walltime"
        rmse.reset()
        for seq in batches(arch, rank_times(va0, va1, K, 0, cfg["seed"]), K, cfg["batch"], mean, std):
            rmse.update(rollout(seq), seq[:, -1])
        scores = rmse.global_result()
        ckpt.epoch.assign(epoch + 1)
        ckpt.step.assign(step)
        if hvd.rank() == 0:
            print("epoch %d done %.0fs  day-1 RMSE %s" % (epoch, time.time() - t_ep,
                                                         dict(zip(cfg["var_names"], np.round(scores, 4)))),
                  flush=True)
            manager.save()
    return "done"


if __name__ == "__main__":
    cli.run(train)
