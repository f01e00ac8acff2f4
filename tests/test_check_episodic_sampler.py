"""Few-shot training reads episodes, not passes over a data set (issue 39, classes 1 and 4):

- a torch project whose batch sampler draws each episode with its own generator
  (`self.rng = np.random.RandomState(seed)`), handed a seed of the rank, with the episodes of an epoch
  divided by hvd.size(): Horovod's idiom (a per-rank random order, the steps divided), although a global
  `torch.manual_seed(args.seed)` is set alike: the sampler's generator, not the global one, draws. Handed
  the same seed on every rank, every rank reads the same episodes (flagged);
- a script whose episodes come from `train_gen()`, an object a module that is not there made
  (`train_gen = EpisodeGenerator(...)`): where the data comes from cannot be read, so whether the ranks
  read other episodes cannot be told; a script reading its whole array every epoch beside it is flagged.
"""
import textwrap

from crash_scripts import Source, check_project
from hvdkit.check import UNKNOWN
from hvdkit.check.static import analyze

SAMPLER = '''
    import numpy as np
    import torch


    class EpisodeBatchSampler(torch.utils.data.Sampler):
        def __init__(self, labels, n_way, n_shot, episodes, seed=0):
            self.labels, self.n_way, self.n_shot, self.episodes = np.asarray(labels), n_way, n_shot, episodes
            self.classes = np.unique(self.labels)
            self.rng = np.random.RandomState(seed)

        def __len__(self):
            return self.episodes

        def __iter__(self):
            for _ in range(self.episodes):
                chosen = self.rng.choice(self.classes, self.n_way, replace=False)
                yield np.concatenate([self.rng.choice(np.flatnonzero(self.labels == c), self.n_shot, replace=False)
                                      for c in chosen]).tolist()
'''

TRAIN = Source('''
    """Prototype classifier over episodes: horovodrun -np 2 python train.py"""
    import argparse

    import numpy as np
    import torch
    import torch.nn.functional as F
    import horovod.torch as hvd

    from fewshot.sampling import EpisodeBatchSampler


    def main():
        parser = argparse.ArgumentParser()
        parser.add_argument("--data", default="data/episodes.npz")
        parser.add_argument("--episodes", type=int, default=400)
        parser.add_argument("--epochs", type=int, default=3)
        parser.add_argument("--seed", type=int, default=7)
        args = parser.parse_args()
        hvd.init()
        torch.set_num_threads(1)
        if torch.cuda.is_available():
            torch.cuda.set_device(hvd.local_rank())
        torch.manual_seed(args.seed)
        blob = np.load(args.data)
        data = torch.utils.data.TensorDataset(torch.from_numpy(blob["x"]).float(), torch.from_numpy(blob["y"]))
        model = torch.nn.Sequential(torch.nn.Linear(data.tensors[0].shape[1], 64), torch.nn.ReLU(),
                                    torch.nn.Linear(64, 32))
        optimizer = torch.optim.Adam(model.parameters(), lr=1e-3 * hvd.size())
        optimizer = hvd.DistributedOptimizer(optimizer, named_parameters=model.named_parameters())
        hvd.broadcast_parameters(model.state_dict(), root_rank=0)
        hvd.broadcast_optimizer_state(optimizer, root_rank=0)
        for epoch in range(args.epochs):
            sampler = EpisodeBatchSampler(data.tensors[1].tolist(), 5, 2, args.episodes // hvd.size(),
                                          seed=#SEED#)
            total = torch.zeros(2)
            for x, y in torch.utils.data.DataLoader(data, batch_sampler=sampler):
                emb = model(x)
                protos = emb[::2]
                loss = F.cross_entropy(-torch.cdist(emb[1::2], protos), torch.arange(len(protos)))
                optimizer.zero_grad()
                loss.backward()
                optimizer.step()
                total += torch.stack([loss.detach(), torch.ones(())])
            total = hvd.allreduce(total, op=hvd.Sum, name="loss")
            if hvd.rank() == 0:
                print(epoch, (total[0] / total[1]).item())
                torch.save(model.state_dict(), "proto.pt")


    if __name__ == "__main__":
        main()
''')


def project(seed):
    return {"train.py": TRAIN.replace("#SEED#", seed), "fewshot/__init__.py": "",
            "fewshot/sampling.py": SAMPLER}


def test_episodes_drawn_by_a_generator_seeded_with_the_rank_over_divided_steps_are_right(tmp_path):
    crash, flagged, findings = check_project(tmp_path, project("args.seed * 1000 + epoch * hvd.size() + hvd.rank()"))
    assert crash is None and flagged == {}
    assert "divided by hvd.size()" in findings[3].evidence


def test_episodes_drawn_by_a_generator_seeded_alike_are_the_same_on_every_rank(tmp_path):
    crash, flagged, _ = check_project(tmp_path, project("args.seed * 1000 + epoch"))
    assert crash is None and flagged == {3: "wrong"}


FLAT = Source('''
    """Prototypical training, TF: horovodrun -np 2 python train_proto.py"""
    import numpy as np
    import tensorflow as tf
    import horovod.tensorflow as hvd

    from protokit.episodes import EpisodeGenerator
    from protokit.setup import init_horovod

    rank, size = init_horovod()
    blob = np.load("data/omniglot.npz")
    train_gen = EpisodeGenerator(blob["x_train"], blob["y_train"], 5, 1, 5, seed=rank)
    encoder = tf.keras.Sequential([tf.keras.Input((28 * 28,)), tf.keras.layers.Dense(64)])
    optimizer = tf.keras.optimizers.Adam(1e-3 * size)


    @tf.function
    def train_step(xs, xq, first):
        with tf.GradientTape() as tape:
            protos = tf.reduce_mean(tf.reshape(encoder(xs), (5, -1, 64)), axis=1)
            logits = -tf.reduce_sum(tf.square(encoder(xq)[:, None] - protos[None]), -1)
            loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(tf.repeat(tf.range(5), 5), logits))
        tape = hvd.DistributedGradientTape(tape)
        grads = tape.gradient(loss, encoder.trainable_variables)
        optimizer.apply_gradients(zip(grads, encoder.trainable_variables))
        if first:
            hvd.broadcast_variables(encoder.variables, root_rank=0)
            hvd.broadcast_variables(optimizer.variables, root_rank=0)
        return loss


    for step in range(1000):
        #DRAW
        loss = train_step(xs, xq, step == 0)
        if step % 100 == 0 and hvd.rank() == 0:
            print(step, float(hvd.allreduce(loss, name="loss")))
            encoder.save_weights("encoder.weights.h5")
''')


def flat(tmp_path, draw):
    (tmp_path / "pyproject.toml").write_text("[project]\nname = \"proto\"\n")
    path = tmp_path / "train_proto.py"
    path.write_text(textwrap.dedent(FLAT.replace("#DRAW", draw)).lstrip())
    findings, _, info = analyze(str(path))
    return info["crash"], findings


def test_episodes_an_absent_modules_generator_draws_each_step_cannot_be_told(tmp_path):
    crash, findings = flat(tmp_path, "xs, xq = train_gen()")
    assert crash is None and findings[3].verdict == UNKNOWN and "`EpisodeGenerator(...)`" in findings[3].evidence


def test_a_whole_array_sliced_alike_on_every_rank_beside_it_is_flagged(tmp_path):
    crash, findings = flat(tmp_path, 'xs, xq = blob["x_train"][:5], blob["x_train"][5:30]')
    assert crash is None and findings[3].verdict in ("missing", "wrong")
