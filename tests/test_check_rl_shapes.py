"""`hvdkit check` on reinforcement-learning loops (blind set zza, read at b542c3f): an environment's step
is no optimizer step, and a Q-network fitted on replayed minibatches reads no data set.

- `obs, reward, done = env.step(action)` returns a transition (here of an environment made by a module the
  test leaves out): a checkpoint saved once per epoch of environment steps is not "written at every step";
  one saved after every update is.
- A rollout loop that calls the policy on the environment's observations and steps the environment collects
  experience: it is no evaluation on a shard (an A2C update's log beside an averaged reward is right).
- A DQN agent whose `replay()` calls `model.fit(states, targets)` on minibatches sampled from its memory:
  each rank's data is its own environment's experience, told apart by the rank in its seed; seeded alike,
  every rank plays and samples the same.

Written from scratch for these tests. The environment-step rule is asserted on the facts (`Facts.steps`):
on this script the step-7 verdicts hold with or without it (zza's SAC was flagged where its agent's update was
in a module not read, so `env.step` was the only step seen); the rollout and DQN tests fail with their
rules taken back."""
import ast
import textwrap

from crash_scripts import Source, check


def src(text):
    return Source(textwrap.dedent(text).lstrip())


SAC = src('''
    import argparse
    import os

    import numpy as np
    import torch
    import torch.nn.functional as F
    import horovod.torch as hvd

    from simenvs import make_env  # the repository's environments (not in this test's project)


    def main():
        p = argparse.ArgumentParser()
        p.add_argument("--steps-per-epoch", type=int, default=4000)
        p.add_argument("--epochs", type=int, default=3)
        p.add_argument("--batch", type=int, default=32)
        args = p.parse_args()
        steps_per_epoch, epochs, batch = args.steps_per_epoch, args.epochs, args.batch
        hvd.init()
        torch.set_num_threads(1)
        torch.manual_seed(7)
        env = make_env("pendulum", seed=100 + hvd.rank())
        q = torch.nn.Linear(4, 1)
        opt = hvd.DistributedOptimizer(torch.optim.Adam(q.parameters(), lr=3e-4 * hvd.size()),
                                       named_parameters=q.named_parameters())
        hvd.broadcast_parameters(q.state_dict(), root_rank=0)
        buf, o = [], env.reset()
        for t in range(steps_per_epoch * epochs):
            a = np.random.uniform(-1, 1, 1).astype(np.float32)
            o2, r, done = env.step(a)
            buf.append((o, a, r))
            o = env.reset() if done else o2
            if len(buf) >= batch:
                obs = torch.tensor(np.array([np.concatenate([b[0], b[1]]) for b in buf[-batch:]]))
                rew = torch.tensor([[b[2]] for b in buf[-batch:]], dtype=torch.float32)
                opt.zero_grad()
                F.mse_loss(q(obs), rew).backward()
                opt.step()
                SAVE_AFTER_UPDATE
            if (t + 1) % steps_per_epoch == 0:
                ret = hvd.allreduce(torch.tensor(float(np.mean([b[2] for b in buf[-steps_per_epoch:]]))), name="ret")
                if hvd.rank() == 0:
                    print(t + 1, ret.item())
                    torch.save(q.state_dict(), os.path.join("runs", "q.pt"))


    if __name__ == "__main__":
        main()
''')


def test_a_checkpoint_once_per_epoch_of_environment_steps_is_not_every_step(tmp_path):
    assert check(tmp_path, SAC.replace("SAVE_AFTER_UPDATE", "pass"))[1] == {}
    every = 'if hvd.rank() == 0:\n                    torch.save(q.state_dict(), "last.pt")'
    assert check(tmp_path, SAC.replace("SAVE_AFTER_UPDATE", every))[1] == {7: "wrong"}


DQN = src('''
    import random
    from collections import deque

    import numpy as np
    import tensorflow as tf
    import keras
    import horovod.tensorflow.keras as hvd


    class Corridor:
        def __init__(self, seed):
            self.rng = np.random.default_rng(seed)
            self.pos = 0

        def reset(self):
            self.pos = int(self.rng.integers(0, 5))
            return np.eye(10, dtype=np.float32)[self.pos]

        def step(self, action):
            self.pos = int(np.clip(self.pos + (1 if action else -1), 0, 9))
            return np.eye(10, dtype=np.float32)[self.pos], float(self.pos == 9), self.pos == 9


    class Agent:
        def __init__(self, lr=1e-3, batch=32):
            self.memory, self.batch = deque(maxlen=5000), batch
            self.model = keras.Sequential([keras.Input((10,)), keras.layers.Dense(32, activation="relu"),
                                           keras.layers.Dense(2)])
            self.model.compile(optimizer=hvd.DistributedOptimizer(keras.optimizers.Adam(lr * hvd.size())),
                               loss="mse")

        def act(self, state):
            if random.random() < 0.1:
                return random.randrange(2)
            return int(np.argmax(self.model.predict(state[None], verbose=0)[0]))

        def replay(self, callbacks):
            batch = random.sample(self.memory, self.batch)
            states = np.array([b[0] for b in batch])
            q = self.model.predict(states, verbose=0)
            for i, (_, a, r, _, _) in enumerate(batch):
                q[i, a] = r
            return self.model.fit(states, q, epochs=1, verbose=0, callbacks=callbacks).history["loss"][0]


    def main(steps=2000):
        hvd.init()
        gpus = tf.config.list_physical_devices("GPU")
        if gpus:
            tf.config.set_visible_devices(gpus[hvd.local_rank()], "GPU")
        seed = SEED
        random.seed(seed)
        np.random.seed(seed)
        env, agent = Corridor(seed), Agent()
        callbacks = [hvd.callbacks.BroadcastGlobalVariablesCallback(0)]
        state = env.reset()
        for step in range(1, steps + 1):
            action = agent.act(state)
            nxt, reward, done = env.step(action)
            agent.memory.append((state, action, reward, nxt, done))
            state = env.reset() if done else nxt
            if len(agent.memory) >= agent.batch:
                loss = agent.replay(callbacks)
                if step % 500 == 0:
                    loss = float(hvd.allreduce(np.float32(loss), name="loss"))
                    if hvd.rank() == 0:
                        print(step, loss)
                        agent.model.save("dqn.keras")


    if __name__ == "__main__":
        main()
''')


def test_a_q_network_fitted_on_replayed_experience_seeded_by_rank(tmp_path):
    assert check(tmp_path, DQN.replace("SEED", "1234 + hvd.rank()"))[1] == {}
    assert check(tmp_path, DQN.replace("SEED", "1234"))[1] == {3: "wrong"}


def test_an_environments_step_is_no_training_step(tmp_path):
    from hvdkit.check import static
    from hvdkit.check.facts import Facts
    path = tmp_path / "sac.py"
    path.write_text(SAC.replace("SAVE_AFTER_UPDATE", "pass"))
    facts = Facts(static.load(str(path)))
    assert [ast.unparse(s.node) for s in facts.steps] == ["opt.step()"]


A2C = src('''
    import numpy as np
    import torch
    import horovod.torch as hvd

    from simenvs import make_env  # the repository's environments (not in this test's project)


    def main(updates=300, rollout=16):
        hvd.init()
        torch.set_num_threads(1)
        env = make_env("cartpole", seed=11 + hvd.rank())
        model = torch.nn.Linear(4, 3)  # two action logits and a value
        opt = torch.optim.Adam(model.parameters(), lr=7e-4 * hvd.size())
        opt = hvd.DistributedOptimizer(opt, named_parameters=model.named_parameters())
        hvd.broadcast_parameters(model.state_dict(), root_rank=0)
        obs = env.reset()
        for update in range(updates):
            logps, values, rewards = [], [], []
            for _ in range(rollout):
                out = model(torch.as_tensor(obs, dtype=torch.float32))
                dist = torch.distributions.Categorical(logits=out[:2])
                action = dist.sample()
                obs, reward, done = env.step(int(action))
                logps.append(dist.log_prob(action))
                values.append(out[2])
                rewards.append(float(reward))
                if done:
                    obs = env.reset()
            adv = torch.tensor(rewards) - torch.stack(values)
            loss = -(torch.stack(logps) * adv.detach()).mean() + adv.pow(2).mean()
            opt.zero_grad()
            loss.backward()
            opt.step()
            if update % 50 == 0:
                reward = hvd.allreduce(torch.tensor(float(np.mean(rewards))), name="reward")
                if hvd.rank() == 0:
                    print(update, reward.item(), loss.item())
                    torch.save(model.state_dict(), "a2c.pt")


    if __name__ == "__main__":
        main()
''')


def test_a_rollout_that_acts_in_the_environment_is_no_evaluation(tmp_path):
    from hvdkit.check import static
    from hvdkit.check.facts import Facts
    from hvdkit.check.rules.evaluation import evaluations
    assert check(tmp_path, A2C)[1] == {}
    path = tmp_path / "a2c.py"
    path.write_text(A2C)
    assert evaluations(Facts(static.load(str(path)))) == []
