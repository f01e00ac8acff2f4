"""DDPG on the pendulum swing-up, one environment + replay buffer per Horovod worker.

    horovodrun -np 4 python train.py --total-steps 50000
"""
import argparse

import numpy as np
import tensorflow as tf
import keras
import horovod.tensorflow as hvd

from tfrl import device, nets
from tfrl.dist import mean_over_workers, save_actor, sync_networks
from tfrl.env import Pendulum
from tfrl.replay import Replay

p = argparse.ArgumentParser()
p.add_argument("--total-steps", type=int, default=50_000)
p.add_argument("--start-steps", type=int, default=2_000)
p.add_argument("--batch-size", type=int, default=128)
p.add_argument("--actor-lr", type=float, default=1e-4)
p.add_argument("--critic-lr", type=float, default=1e-3)
p.add_argument("--gamma", type=float, default=0.99)
p.add_argument("--tau", type=float, default=0.005)
p.add_argument("--noise", type=float, default=0.1)
p.add_argument("--seed", type=int, default=0)
p.add_argument("--out", default="runs/ddpg")


def main():
    args = p.parse_args()
    hvd.init()
    device.configure_gpus()

    seed = args.seed + 100 * hvd.rank()
    env, rng = Pendulum(seed), np.random.default_rng(seed)
    replay = Replay(3, 1, 200_000, seed=seed)

    pi, q = nets.actor(3, 1, Pendulum.max_torque), nets.critic(3, 1)
    pi_targ, q_targ = nets.actor(3, 1, Pendulum.max_torque), nets.critic(3, 1)
    pi_opt = keras.optimizers.Adam(args.actor_lr * hvd.size())
    q_opt = keras.optimizers.Adam(args.critic_lr * hvd.size())
    sync_networks(pi, q)
    pi_targ.set_weights(pi.get_weights())
    q_targ.set_weights(q.get_weights())

    @tf.function
    def update(o, a, r, o2, d):
        with tf.GradientTape() as tape:
            target = r + args.gamma * (1 - d) * q_targ([o2, pi_targ(o2)])
            q_loss = tf.reduce_mean((q([o, a]) - tf.stop_gradient(target)) ** 2)
        tape = hvd.DistributedGradientTape(tape)
        q_opt.apply_gradients(zip(tape.gradient(q_loss, q.trainable_variables), q.trainable_variables))

        with tf.GradientTape() as tape:
            pi_loss = -tf.reduce_mean(q([o, pi(o)]))
        pi_opt.apply_gradients(zip(tape.gradient(pi_loss, pi.trainable_variables), pi.trainable_variables))
        nets.soft_update(q_targ, q, args.tau)
        nets.soft_update(pi_targ, pi, args.tau)
        return q_loss, pi_loss

    o, ep_ret, returns = env.reset(), 0.0, []
    for t in range(1, args.total_steps + 1):
        if t < args.start_steps:
            a = rng.uniform(-2, 2, 1)
        else:
            a = pi(o[None]).numpy()[0] + args.noise * Pendulum.max_torque * rng.standard_normal(1)
        o2, r, done = env.step(a[0])
        replay.store(o, a, r, o2, float(done))
        o, ep_ret = o2, ep_ret + r
        if done:
            returns.append(ep_ret)
            o, ep_ret = env.reset(), 0.0
        if t >= args.start_steps:
            b = replay.sample(args.batch_size)
            q_loss, pi_loss = update(b["o"], b["a"], b["r"], b["o2"], b["d"])
        if t % 5_000 == 0:
            # fixed-length episodes: every worker has finished the same number of them
            avg_ret = mean_over_workers(np.mean(returns[-10:]), "avg_return")
            if hvd.rank() == 0:
                print(f"step {t}: avg return {avg_ret:.1f}")
            save_actor(pi, args.out, t)


if __name__ == "__main__":
    main()
