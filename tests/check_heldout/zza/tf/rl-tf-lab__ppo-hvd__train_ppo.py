#!/usr/bin/env python3
"""PPO (clipped surrogate) with separate actor and critic networks, data-parallel over
Horovod workers: each worker collects its own rollouts, gradients are averaged.

    horovodrun -np 4 python train_ppo.py --iterations 300
"""
import argparse
import os

import numpy as np
import tensorflow as tf
import keras
import horovod.tensorflow as hvd


class Corridor:
    """1-D corridor: reach the goal at +L while avoiding the pit at -L. Discrete actions {left, stay, right}."""

    n_actions, obs_dim = 3, 2

    def __init__(self, length=10, horizon=100, seed=0):
        self.L, self.H = length, horizon
        self.rng = np.random.default_rng(seed)

    def reset(self):
        self.pos, self.t = int(self.rng.integers(-2, 3)), 0
        return self._obs()

    def _obs(self):
        return np.array([self.pos / self.L, self.t / self.H], dtype=np.float32)

    def step(self, a):
        self.pos += int(a) - 1
        if self.rng.random() < 0.1:  # slippery floor
            self.pos += int(self.rng.choice([-1, 1]))
        self.t += 1
        if self.pos >= self.L:
            return self._obs(), 1.0, True
        if self.pos <= -self.L:
            return self._obs(), -1.0, True
        return self._obs(), -0.01, self.t >= self.H


def mlp(out_dim, name):
    return keras.Sequential([keras.layers.Dense(64, activation="tanh"),
                             keras.layers.Dense(64, activation="tanh"),
                             keras.layers.Dense(out_dim)], name=name)


def gae(rewards, values, dones, last_value, gamma, lam):
    adv = np.zeros_like(rewards)
    last = 0.0
    for t in reversed(range(len(rewards))):
        next_v = last_value if t == len(rewards) - 1 else values[t + 1]
        delta = rewards[t] + gamma * next_v * (1 - dones[t]) - values[t]
        last = delta + gamma * lam * (1 - dones[t]) * last
        adv[t] = last
    return adv, adv + values


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--iterations", type=int, default=300)
    p.add_argument("--rollout", type=int, default=2048, help="env steps per worker per iteration")
    p.add_argument("--minibatch", type=int, default=256)
    p.add_argument("--ppo-epochs", type=int, default=10)
    p.add_argument("--actor-lr", type=float, default=3e-4)
    p.add_argument("--critic-lr", type=float, default=1e-3)
    p.add_argument("--clip", type=float, default=0.2)
    p.add_argument("--gamma", type=float, default=0.99)
    p.add_argument("--lam", type=float, default=0.95)
    p.add_argument("--seed", type=int, default=7)
    p.add_argument("--save-dir", default="ppo_ckpt")
    args = p.parse_args()

    hvd.init()
    gpus = tf.config.list_physical_devices("GPU")
    for g in gpus:
        tf.config.experimental.set_memory_growth(g, True)
    if gpus:
        tf.config.set_visible_devices(gpus[hvd.local_rank()], "GPU")

    env = Corridor(seed=args.seed + hvd.rank())
    tf.random.set_seed(args.seed + hvd.rank())

    actor, critic = mlp(env.n_actions, "actor"), mlp(1, "critic")
    dummy = tf.zeros((1, env.obs_dim))
    actor(dummy), critic(dummy)
    actor_opt = keras.optimizers.Adam(args.actor_lr * hvd.size())
    critic_opt = keras.optimizers.Adam(args.critic_lr * hvd.size())
    hvd.broadcast_variables(actor.variables + critic.variables, root=0)

    @tf.function
    def update(obs, act, old_logp, adv, ret):
        with tf.GradientTape() as a_tape, tf.GradientTape() as c_tape:
            logits = actor(obs)
            logp = tf.reduce_sum(tf.nn.log_softmax(logits) * tf.one_hot(act, env.n_actions), axis=1)
            ratio = tf.exp(logp - old_logp)
            clipped = tf.clip_by_value(ratio, 1 - args.clip, 1 + args.clip)
            pi_loss = -tf.reduce_mean(tf.minimum(ratio * adv, clipped * adv))
            entropy = -tf.reduce_mean(tf.reduce_sum(tf.nn.softmax(logits) * tf.nn.log_softmax(logits), axis=1))
            pi_loss -= 0.01 * entropy
            v_loss = tf.reduce_mean(tf.square(ret - tf.squeeze(critic(obs), 1)))
        a_tape = hvd.DistributedGradientTape(a_tape)
        a_grads = a_tape.gradient(pi_loss, actor.trainable_variables)
        c_grads = c_tape.gradient(v_loss, critic.trainable_variables)
        actor_opt.apply_gradients(zip(a_grads, actor.trainable_variables))
        critic_opt.apply_gradients(zip(c_grads, critic.trainable_variables))
        return pi_loss, v_loss

    obs = env.reset()
    ep_ret, finished = 0.0, []
    for it in range(args.iterations):
        buf = {k: [] for k in ("obs", "act", "logp", "rew", "val", "done")}
        for _ in range(args.rollout):
            logits = actor(obs[None]).numpy()[0]
            probs = np.exp(logits - logits.max())
            probs /= probs.sum()
            a = int(np.random.choice(env.n_actions, p=probs))
            v = float(critic(obs[None])[0, 0])
            nxt, r, done = env.step(a)
            for k, val in zip(buf, (obs, a, np.log(probs[a]), r, v, float(done))):
                buf[k].append(val)
            ep_ret += r
            obs = nxt
            if done:
                finished.append(ep_ret)
                obs, ep_ret = env.reset(), 0.0
        last_v = float(critic(obs[None])[0, 0])
        b = {k: np.asarray(v, dtype=np.float32) for k, v in buf.items()}
        adv, ret = gae(b["rew"], b["val"], b["done"], last_v, args.gamma, args.lam)
        adv = (adv - adv.mean()) / (adv.std() + 1e-8)

        idx = np.arange(args.rollout)
        for _ in range(args.ppo_epochs):
            np.random.shuffle(idx)
            for s in range(0, args.rollout, args.minibatch):
                mb = idx[s:s + args.minibatch]
                pi_loss, v_loss = update(b["obs"][mb], b["act"][mb].astype(np.int32), b["logp"][mb], adv[mb], ret[mb])

        mean_ret = np.mean(finished[-20:]) if finished else 0.0
        mean_ret = hvd.allreduce(tf.constant(mean_ret, tf.float32), op=hvd.Average).numpy()
        if hvd.rank() == 0:
            print(f"iter {it:4d}  return {mean_ret:+.3f}  pi {float(pi_loss):.3f}  v {float(v_loss):.3f}")
            if (it + 1) % 25 == 0:
                os.makedirs(args.save_dir, exist_ok=True)
                actor.save(os.path.join(args.save_dir, "actor.keras"))
                critic.save(os.path.join(args.save_dir, "critic.keras"))


if __name__ == "__main__":
    main()
