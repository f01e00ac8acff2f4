"""Step 3 where no data set is read:

- reinforcement learning: each rank's data is what its environment gives back. Seeded by the rank (`seed =
  args.seed + hvd.rank()`), the ranks collect different experience: ok, even with the updates divided by
  hvd.size() and minibatches picked at random from the rank's own rollouts. Seeded alike
  (`torch.manual_seed(args.seed)`, `make_env(args.seed)`), every rank plays the same episodes: wrong;
- a start that resumes (`range(start_epoch, epochs)` with start_epoch = global_step // steps_per_epoch) is
  no bound: steps_per_epoch divided by hvd.size() there does not divide the epochs of sharded data;
- a mean return summed over ranks (op=hvd.Sum) and printed is hvd.size() times the mean, though an RL
  return is not computed from the model's outputs as a loss is (step 8; blind set zc, dqn).

Written from scratch for these tests: a DQN-style project (`train.py`, `rlkit/`) and a flat TF loop."""
import textwrap

from crash_scripts import Source, check_project
from hvdkit.check import OK, WRONG
from hvdkit.check.static import analyze

RL_TRAIN = Source('''
    """Grid-world DQN.  horovodrun -np 4 python train.py"""
    import argparse

    import numpy as np
    import torch
    import horovod.torch as hvd

    from rlkit.envs import make_env

    p = argparse.ArgumentParser()
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--env-steps", type=int, default=200_000)
    p.add_argument("--batch", type=int, default=64)
    args = p.parse_args()

    hvd.init()
    torch.set_num_threads(1)
    SEEDING
    env = make_env(SEED)
    q = torch.nn.Sequential(torch.nn.Linear(4, 64), torch.nn.ReLU(), torch.nn.Linear(64, 2))
    opt = hvd.DistributedOptimizer(torch.optim.Adam(q.parameters(), lr=1e-3 * hvd.size()),
                                   named_parameters=q.named_parameters())
    hvd.broadcast_parameters(q.state_dict(), root_rank=0)
    hvd.broadcast_optimizer_state(opt, root_rank=0)
    obs, memory, returns = env.reset(), [], []
    for t in range(args.env_steps // hvd.size()):
        action = int(q(torch.as_tensor(obs)).argmax()) if np.random.rand() > 0.1 else np.random.randint(2)
        nxt, reward, done = env.step(action)
        memory.append((obs, action, reward, nxt, done))
        obs = env.reset() if done else nxt
        if len(memory) >= args.batch:
            idx = np.random.choice(len(memory), args.batch)
            o, a, r, n, d = map(np.array, zip(*[memory[i] for i in idx]))
            target = torch.as_tensor(r, dtype=torch.float32)
            pred = q(torch.as_tensor(o, dtype=torch.float32)).gather(1, torch.as_tensor(a)[:, None]).squeeze(1)
            loss = torch.nn.functional.mse_loss(pred, target)
            opt.zero_grad()
            loss.backward()
            opt.step()
        if done:
            returns.append(reward)
        if t % 10_000 == 0 and returns:
            mean = hvd.allreduce(torch.tensor(float(np.mean(returns))))
            if hvd.rank() == 0:
                print(t, mean.item())
                torch.save(q.state_dict(), "dqn.pt")
''')

ENVS = '''
    import numpy as np


    class Corridor:
        def __init__(self, seed=None):
            self.rng = np.random.default_rng(seed)
            self.pos = 0

        def reset(self):
            self.pos = int(self.rng.integers(0, 3))
            return np.eye(4, dtype=np.float32)[self.pos]

        def step(self, action):
            self.pos = max(0, min(3, self.pos + (1 if action else -1)))
            done = self.pos == 3
            return np.eye(4, dtype=np.float32)[self.pos], float(done), done


    def make_env(seed):
        return Corridor(seed=seed)
'''


def rl(tmp_path, seeding, seed):
    files = {"train.py": RL_TRAIN.replace("SEEDING", seeding).replace("SEED)", seed + ")"), "rlkit/__init__.py": "",
             "rlkit/envs.py": ENVS}
    return check_project(tmp_path, files)[2][3]


def test_each_rank_seeded_by_its_rank_collects_its_own_experience(tmp_path):
    f3 = rl(tmp_path, "seed = args.seed + hvd.rank()\n    torch.manual_seed(seed)\n    np.random.seed(seed)", "seed")
    assert f3.verdict == OK, f3


def test_ranks_seeded_alike_collect_the_same_experience(tmp_path):
    f3 = rl(tmp_path, "torch.manual_seed(args.seed)\n    np.random.seed(args.seed)", "args.seed")
    assert f3.verdict == WRONG and "alike" in f3.evidence, f3


RESUME = '''
    """Autoencoder with resume.  horovodrun -np 4 python train.py"""
    import numpy as np
    import tensorflow as tf
    import horovod.tensorflow as hvd

    hvd.init()
    gpus = tf.config.list_physical_devices("GPU")
    if gpus:
        tf.config.set_visible_devices(gpus[hvd.local_rank()], "GPU")
    windows = np.random.rand(8192, 32).astype("float32")
    ds = tf.data.Dataset.from_tensor_slices(windows).shard(hvd.size(), hvd.rank()).shuffle(1024).batch(64)
    model = tf.keras.Sequential([tf.keras.Input((32,)), tf.keras.layers.Dense(8), tf.keras.layers.Dense(32)])
    opt = tf.keras.optimizers.Adam(1e-3 * hvd.size())
    step = tf.Variable(0, dtype=tf.int64)
    ckpt = tf.train.Checkpoint(model=model, optimizer=opt, step=step)
    manager = tf.train.CheckpointManager(ckpt, "ckpt", max_to_keep=2)
    if manager.latest_checkpoint:
        ckpt.restore(manager.latest_checkpoint)


    @tf.function
    def train_step(x, first):
        with tf.GradientTape() as tape:
            loss = tf.reduce_mean(tf.square(model(x, training=True) - x))
        tape = hvd.DistributedGradientTape(tape)
        opt.apply_gradients(zip(tape.gradient(loss, model.trainable_variables), model.trainable_variables))
        if first:
            hvd.broadcast_variables(model.variables, root_rank=0)
            hvd.broadcast_variables(opt.variables, root_rank=0)
        return loss


    steps_per_epoch = len(windows) // (64 * hvd.size())
    start_epoch = int(step.numpy()) // steps_per_epoch
    for epoch in range(start_epoch, 30):
        for x in ds:
            loss = train_step(x, int(step.numpy()) == 0)
            step.assign_add(1)
        mean = hvd.allreduce(loss)
        if hvd.rank() == 0:
            print(epoch, float(mean))
            manager.save()
'''


def test_a_resume_start_is_no_bound_on_the_epochs(tmp_path):
    path = tmp_path / "train.py"
    path.write_text(textwrap.dedent(RESUME).lstrip())
    f3 = analyze(str(path))[0][3]
    assert f3.verdict == OK, f3


PER_RANK = "seed = args.seed + hvd.rank()\n    torch.manual_seed(seed)\n    np.random.seed(seed)"


def rl_metrics(tmp_path, op):
    files = {"train.py": RL_TRAIN.replace("SEEDING", PER_RANK).replace("SEED)", "seed)").replace(
        "mean = hvd.allreduce(torch.tensor(float(np.mean(returns))))",
        f"mean = hvd.allreduce(torch.tensor(float(np.mean(returns))){op})"),
        "rlkit/__init__.py": "", "rlkit/envs.py": ENVS}
    return check_project(tmp_path, files)[2][8]


def test_mean_returns_averaged_over_ranks_are_fine(tmp_path):
    assert rl_metrics(tmp_path, "").verdict == OK


def test_mean_returns_summed_over_ranks_are_hvd_size_times_too_large(tmp_path):
    f8 = rl_metrics(tmp_path, ", op=hvd.Sum")
    assert f8.verdict == WRONG and "sums" in f8.evidence, f8
