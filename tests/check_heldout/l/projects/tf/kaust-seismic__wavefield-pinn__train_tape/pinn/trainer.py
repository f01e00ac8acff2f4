import math
import os
import time

import numpy as np
import tensorflow as tf
import horovod.tensorflow as hvd


def lr_at(step, base_lr, warmup, total):
    if step < warmup:
        return base_lr * (step + 1) / warmup
    return base_lr * 0.5 * (1 + math.cos(math.pi * (step - warmup) / max(1, total - warmup)))


class Trainer:
    def __init__(self, model, optimizer, velocity_fn, cfg):
        self.model = model
        self.optimizer = optimizer
        self.velocity_fn = velocity_fn
        self.cfg = cfg
        self.step = tf.Variable(0, dtype=tf.int64, trainable=False)

        # Horovod: start all workers from the same weights
        hvd.broadcast_variables(self.model.variables, root_rank=0)
        hvd.broadcast_variables(self.optimizer.variables, root_rank=0)

        self.ckpt = tf.train.Checkpoint(model=model, optimizer=optimizer, step=self.step)
        self.manager = tf.train.CheckpointManager(self.ckpt, cfg["ckpt_dir"], max_to_keep=5)
        if self.manager.latest_checkpoint:
            self.ckpt.restore(self.manager.latest_checkpoint)

    def pde_residual(self, xzt):
        with tf.GradientTape(persistent=True) as t2:
            t2.watch(xzt)
            with tf.GradientTape() as t1:
                t1.watch(xzt)
                u = self.model(xzt)
            du = t1.gradient(u, xzt)
            u_x, u_z, u_t = du[:, 0], du[:, 1], du[:, 2]
        u_xx = t2.gradient(u_x, xzt)[:, 0]
        u_zz = t2.gradient(u_z, xzt)[:, 1]
        u_tt = t2.gradient(u_t, xzt)[:, 2]
        del t2
        c = self.velocity_fn(xzt[:, 0], xzt[:, 1])
        return u_tt - c ** 2 * (u_xx + u_zz)

    @tf.function
    def train_step(self, xzt_obs, u_obs, xzt_col):
        with tf.GradientTape() as tape:
            data_loss = tf.reduce_mean(tf.square(self.model(xzt_obs) - u_obs))
            pde_loss = tf.reduce_mean(tf.square(self.pde_residual(xzt_col)))
            loss = data_loss + self.cfg["pde_weight"] * pde_loss
        tape = hvd.DistributedGradientTape(tape)
        grads = tape.gradient(loss, self.model.trainable_variables)
        self.optimizer.apply_gradients(zip(grads, self.model.trainable_variables))
        return data_loss, pde_loss

    def fit(self, obs_ds, collocation_fn, total_steps):
        it = iter(obs_ds)
        t0 = time.time()
        data_sum = pde_sum = 0.0
        while int(self.step) < total_steps:
            step = int(self.step)
            self.optimizer.learning_rate.assign(
                lr_at(step, self.cfg["lr"], self.cfg["warmup_steps"], total_steps))
            xzt, u = next(it)
            d, p = self.train_step(xzt, u, collocation_fn())
            data_sum += float(d)
            pde_sum += float(p)
            self.step.assign_add(1)
            if (step + 1) % self.cfg["log_every"] == 0:
                stats = hvd.allreduce(tf.constant([data_sum, pde_sum]) / self.cfg["log_every"],
                                      name="train_losses")
                if hvd.rank() == 0:
                    print(f"step {step + 1:7d}  data {stats[0]:.3e}  pde {stats[1]:.3e}  "
                          f"lr {float(self.optimizer.learning_rate):.2e}  {time.time() - t0:.0f}s",
                          flush=True)
                data_sum = pde_sum = 0.0
            if (step + 1) % self.cfg["ckpt_every"] == 0:
                self.manager.save(checkpoint_number=step + 1)
        self.manager.save(checkpoint_number=int(self.step))
