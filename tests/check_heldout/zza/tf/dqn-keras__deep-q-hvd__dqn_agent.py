# Deep Q-learning agent (Keras 3) trained data-parallel with Horovod.
# Each worker plays its own copy of the environment; the online network is fitted
# on replayed minibatches and gradients are averaged by hvd.DistributedOptimizer.
#
#   horovodrun -np 4 python dqn_agent.py --steps 100000
import argparse
import os
import random
from collections import deque

import numpy as np
import tensorflow as tf
import keras
import horovod.tensorflow as hvd_tf
import horovod.tensorflow.keras as hvd


class MountainCar:
    """Discrete mountain car (3 actions), 200 steps per episode."""

    def __init__(self, seed):
        self.rng = np.random.default_rng(seed)
        self.state_size, self.action_size = 2, 3

    def reset(self):
        self.pos, self.vel, self.t = self.rng.uniform(-0.6, -0.4), 0.0, 0
        return np.array([self.pos, self.vel], dtype=np.float32)

    def step(self, action):
        self.vel = np.clip(self.vel + (action - 1) * 0.001 - 0.0025 * np.cos(3 * self.pos), -0.07, 0.07)
        self.pos = np.clip(self.pos + self.vel, -1.2, 0.6)
        if self.pos == -1.2:
            self.vel = 0.0
        self.t += 1
        done = self.pos >= 0.5 or self.t >= 200
        return np.array([self.pos, self.vel], dtype=np.float32), (0.0 if self.pos >= 0.5 else -1.0), done


class DQNAgent:
    def __init__(self, state_size, action_size, args):
        self.state_size, self.action_size = state_size, action_size
        self.memory = deque(maxlen=args.memory)
        self.gamma = args.gamma
        self.epsilon, self.epsilon_min, self.epsilon_decay = 1.0, 0.05, args.eps_decay
        # scale the learning rate with the number of workers
        self.learning_rate = args.lr * hvd.size()
        self.batch_size = args.batch_size
        self.model = self._build_model()
        self.target_model = self._build_model()

    def _build_model(self):
        model = keras.Sequential([
            keras.Input((self.state_size,)),
            keras.layers.Dense(64, activation="relu"),
            keras.layers.Dense(64, activation="relu"),
            keras.layers.Dense(self.action_size, activation="linear"),
        ])
        opt = keras.optimizers.Adam(learning_rate=self.learning_rate * hvd.size())
        model.compile(loss="huber", optimizer=hvd.DistributedOptimizer(opt))
        return model

    def update_target_model(self):
        self.target_model.set_weights(self.model.get_weights())

    def remember(self, state, action, reward, next_state, done):
        self.memory.append((state, action, reward, next_state, done))

    def act(self, state):
        if np.random.rand() <= self.epsilon:
            return random.randrange(self.action_size)
        return int(np.argmax(self.model(state[None], training=False)[0]))

    def replay(self):
        minibatch = random.sample(self.memory, self.batch_size)
        states = np.array([m[0] for m in minibatch])
        next_states = np.array([m[3] for m in minibatch])
        q = self.model.predict(states, verbose=0)
        q_next = self.target_model.predict(next_states, verbose=0)
        for i, (_, action, reward, _, done) in enumerate(minibatch):
            q[i][action] = reward if done else reward + self.gamma * np.amax(q_next[i])
        hist = self.model.fit(states, q, batch_size=self.batch_size, epochs=1, verbose=0)
        if self.epsilon > self.epsilon_min:
            self.epsilon *= self.epsilon_decay
        return hist.history["loss"][0]


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--steps", type=int, default=100_000)
    parser.add_argument("--batch-size", type=int, default=64)
    parser.add_argument("--lr", type=float, default=1e-3)
    parser.add_argument("--gamma", type=float, default=0.99)
    parser.add_argument("--memory", type=int, default=50_000)
    parser.add_argument("--eps-decay", type=float, default=0.9995)
    parser.add_argument("--train-every", type=int, default=4)
    parser.add_argument("--target-every", type=int, default=2_000)
    parser.add_argument("--log-every", type=int, default=5_000)
    parser.add_argument("--save-dir", default="./save")
    args = parser.parse_args()

    hvd.init()
    gpus = tf.config.experimental.list_physical_devices("GPU")
    for gpu in gpus:
        tf.config.experimental.set_memory_growth(gpu, True)
    if gpus:
        tf.config.experimental.set_visible_devices(gpus[hvd.local_rank()], "GPU")

    seed = 1234 + hvd.rank()
    random.seed(seed)
    np.random.seed(seed)
    env = MountainCar(seed)
    agent = DQNAgent(env.state_size, env.action_size, args)
    hvd_tf.broadcast_variables(agent.model.variables, root_rank=0)
    agent.update_target_model()

    state, score, scores, loss = env.reset(), 0.0, [], float("nan")
    for step in range(1, args.steps + 1):
        action = agent.act(state)
        next_state, reward, done = env.step(action)
        agent.remember(state, action, reward, next_state, done)
        state, score = next_state, score + reward
        if done:
            scores.append(score)
            state, score = env.reset(), 0.0
        if step > args.batch_size and step % args.train_every == 0:
            loss = agent.replay()
        if step % args.target_every == 0:
            agent.update_target_model()
        if step % args.log_every == 0:
            avg = hvd.allreduce(np.mean(scores[-10:]) if scores else -200.0, name="avg_score")
            if hvd.rank() == 0:
                print(f"step {step}  avg score {float(avg):.1f}  eps {agent.epsilon:.3f}  loss {loss:.4f}")
                os.makedirs(args.save_dir, exist_ok=True)
                agent.model.save(os.path.join(args.save_dir, "dqn_mountaincar.keras"))
