"""REINFORCE with a value-free baseline on CartPoleLite, gradients summed over Horovod workers.

Each worker collects --steps-per-worker transitions per iteration with its own environment seed.
Gradients are summed (op=hvd.Sum): with plain SGD this is the same update as averaging the
gradients and multiplying the learning rate by the number of workers.
"""
import argparse

import numpy as np
import tensorflow as tf
import keras
import horovod.tensorflow as hvd

from rltf.env import CartPoleLite
from rltf.hvd_utils import RootCheckpoint, broadcast_model, global_mean, global_sum, init_horovod
from rltf.policy import build_policy
from rltf.rollout import collect


def parse():
    p = argparse.ArgumentParser()
    p.add_argument("--iterations", type=int, default=300)
    p.add_argument("--steps-per-worker", type=int, default=1000)
    p.add_argument("--lr", type=float, default=0.01)
    p.add_argument("--gamma", type=float, default=0.99)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--ckpt-dir", default="ckpt/reinforce")
    return p.parse_args()


def main():
    args = parse()
    rank, size = init_horovod()
    rng = np.random.default_rng(args.seed + 7919 * rank)
    env = CartPoleLite(seed=args.seed + rank)

    policy = build_policy()
    opt = keras.optimizers.SGD(learning_rate=args.lr, momentum=0.9)
    ckpt = RootCheckpoint(args.ckpt_dir, policy=policy, optimizer=opt)

    @tf.function
    def update(obs, act, adv, first):
        with tf.GradientTape() as tape:
            logp = tf.nn.log_softmax(policy(obs, training=True))
            chosen = tf.gather(logp, act, batch_dims=1)
            loss = -tf.reduce_mean(chosen * adv)
        tape = hvd.DistributedGradientTape(tape, op=hvd.Sum)
        grads = tape.gradient(loss, policy.trainable_variables)
        opt.apply_gradients(zip(grads, policy.trainable_variables))
        if first:
            broadcast_model(policy, opt)
        return loss

    for it in range(args.iterations):
        obs, act, ret, len_sum, n_eps = collect(env, policy, args.steps_per_worker, args.gamma, rng)
        adv = (ret - ret.mean()) / (ret.std() + 1e-8)
        loss = update(obs, act, adv, it == 0)
        # episode counts differ between workers: pool the sums, not the per-worker means
        avg_len = global_sum(len_sum, "len_sum") / global_sum(n_eps, "n_eps")
        # the loss is a mean over the same number of steps on every worker
        avg_loss = global_mean(float(loss), "loss")
        if rank == 0:
            print(f"iter {it:4d}  mean episode length {avg_len:7.2f}  loss {avg_loss:.4f}")
        if (it + 1) % 50 == 0:
            ckpt.save(it + 1)
    ckpt.save(args.iterations)


if __name__ == "__main__":
    main()
