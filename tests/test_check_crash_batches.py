"""A torch DataLoader's batches unpacked into names a batch cannot fill (issue 39, item 5, library behaviour
certain to raise): over one tensor (a language model's token stream, made by the project's Corpus class)
each batch is one tensor of batch_size rows, so `for data, target in loader` raises ValueError on the first
step; over a TensorDataset of n tensors each batch is a list of n. Correct twins: batches sliced by hand, a
TensorDataset of inputs and targets, a collate_fn that makes pairs, a data set the source does not show to be
one tensor.

The projects are written from scratch for these tests, in the styles of real training code."""
import textwrap

from crash_scripts import Source, check_project, line_of


def src(text):
    return Source(textwrap.dedent(text).lstrip())


LM = {
    "main.py": src("""
        import argparse

        import torch
        import horovod.torch as hvd
        from torch.utils.data import DataLoader
        from torch.utils.data.distributed import DistributedSampler

        import corpus as corpus_lib
        from model import TinyLM

        parser = argparse.ArgumentParser(description="a word-level language model on Horovod")
        parser.add_argument("--data", default="data/wiki")
        parser.add_argument("--batch-size", type=int, default=20)
        parser.add_argument("--epochs", type=int, default=2)
        parser.add_argument("--lr", type=float, default=0.5)
        args = parser.parse_args()

        hvd.init()
        torch.set_num_threads(1)
        if torch.cuda.is_available():
            torch.cuda.set_device(hvd.local_rank())
        corpus = corpus_lib.Corpus(args.data)
        sampler = DistributedSampler(corpus.train, num_replicas=hvd.size(), rank=hvd.rank())
        loader = DataLoader(corpus.train, batch_size=args.batch_size, sampler=sampler)
        model = TinyLM(corpus.vocab_size)
        opt = torch.optim.SGD(model.parameters(), lr=args.lr * hvd.size())
        opt = hvd.DistributedOptimizer(opt, named_parameters=model.named_parameters())
        hvd.broadcast_parameters(model.state_dict(), root_rank=0)
        for epoch in range(args.epochs):
            sampler.set_epoch(epoch)
            for batch, (data, target) in enumerate(loader):
                opt.zero_grad()
                loss = torch.nn.functional.cross_entropy(model(data), target)
                loss.backward()
                opt.step()
            avg = hvd.allreduce(loss.detach(), name="loss")
            if hvd.rank() == 0:
                print(epoch, avg.item())
                torch.save(model.state_dict(), "lm.pt")
    """),
    "corpus.py": src("""
        import os

        import torch


        class Corpus:
            def __init__(self, folder):
                self.words = {}
                self.train = self.tokenize(os.path.join(folder, "train.txt"))

            @property
            def vocab_size(self):
                return len(self.words)

            def tokenize(self, path):
                ids = []
                with open(path, encoding="utf-8") as fh:
                    for line in fh:
                        for word in line.split() + ["<eos>"]:
                            ids.append(self.words.setdefault(word, len(self.words)))
                return torch.tensor(ids, dtype=torch.long)
    """),
    "model.py": src("""
        import torch


        class TinyLM(torch.nn.Module):
            def __init__(self, vocab):
                super().__init__()
                self.embed = torch.nn.Embedding(max(vocab, 1), 32)
                self.out = torch.nn.Linear(32, max(vocab, 1))

            def forward(self, x):
                return self.out(self.embed(x))
    """),
}


def edit(files, rel, old, new):
    return {**files, rel: files[rel].replace(old, new)}


def test_batches_of_one_token_tensor_unpacked_as_data_and_target_raise_on_the_first_step(tmp_path):
    crash, flagged, _ = check_project(tmp_path, LM, "main.py")
    assert flagged == {}  # the data code crashing is the crash alone
    assert crash == {"line": line_of(LM["main.py"], "for batch, (data, target) in enumerate(loader)"), "file": None,
                     "error": "ValueError: too many values to unpack (expected 2)",
                     "why": f"each batch of the DataLoader at line {line_of(LM['main.py'], 'loader = DataLoader')} "
                            "is one tensor of 20 rows (the data set `corpus.train` is one tensor), unpacked into 2 "
                            "names"}


def test_a_tensor_dataset_of_one_tensor_unpacked_into_two_names_raises(tmp_path):
    one = edit(LM, "main.py", "loader = DataLoader(corpus.train,", "loader = DataLoader(TensorDataset(corpus.train),")
    one = edit(one, "main.py", "from torch.utils.data import DataLoader\n",
               "from torch.utils.data import DataLoader, TensorDataset\n")
    crash, _, _ = check_project(tmp_path, one, "main.py")
    assert crash["error"] == "ValueError: not enough values to unpack (expected 2, got 1)"


def test_batches_the_source_makes_into_pairs_or_does_not_show_are_not_crashes(tmp_path):
    sliced = edit(LM, "main.py", "for batch, (data, target) in enumerate(loader):\n",
                  "for batch, tokens in enumerate(loader):\n        data, target = tokens[:-1], tokens[1:]\n")
    pairs = edit(LM, "main.py", "loader = DataLoader(corpus.train,",
                 "loader = DataLoader(TensorDataset(corpus.train[:-1], corpus.train[1:]),")
    pairs = edit(pairs, "main.py", "from torch.utils.data import DataLoader\n",
                 "from torch.utils.data import DataLoader, TensorDataset\n")
    collate = edit(LM, "main.py", "sampler=sampler)", "sampler=sampler, collate_fn=corpus_lib.shifted)")
    collate = edit(collate, "corpus.py", "class Corpus:", "def shifted(rows):\n    t = torch.stack(rows)\n"
                   "    return t[:-1], t[1:]\n\n\nclass Corpus:")
    unknown = edit(LM, "corpus.py", "return torch.tensor(ids, dtype=torch.long)", "return load_cached(path, ids)")
    unknown = edit(unknown, "corpus.py", "import torch\n", "import torch\nfrom cache import load_cached\n")
    two = edit(LM, "main.py", "batch_size=args.batch_size, sampler=sampler)",
               "batch_size=2, sampler=sampler, drop_last=True)")
    for what, files in (("sliced by hand", sliced), ("a TensorDataset of pairs", pairs), ("a collate_fn", collate),
                        ("a data set made by code not read", unknown), ("two rows a batch, the last one dropped", two)):
        assert check_project(tmp_path / what.replace(" ", "_"), files, "main.py")[0] is None, what


def test_the_batch_size_is_the_declared_default_only_when_nothing_else_can_give_it(tmp_path):
    option = 'parser.add_argument("--batch-size", type=int, default=20)\n'
    wins = edit(LM, "main.py", option, option + "parser.set_defaults(batch_size=2)\n")
    assert check_project(tmp_path / "set_defaults_2", wins, "main.py")[0] is None  # two rows: a pair
    wins_20 = edit(LM, "main.py", option, option + "parser.set_defaults(batch_size=20)\n")
    assert check_project(tmp_path / "set_defaults_20", wins_20, "main.py")[0]["line"] == \
        line_of(wins_20["main.py"], "for batch, (data, target)")
    required = edit(LM, "main.py", option, option.replace("default=20", "default=20, required=True"))
    set_after = edit(LM, "main.py", "args = parser.parse_args()\n",
                     "args = parser.parse_args()\nargs.batch_size = 2 if args.data.endswith('pairs') else 20\n")
    given = edit(LM, "main.py", "args = parser.parse_args()", 'args = parser.parse_args(["--batch-size", "2"])')
    for what, files in (("required", required), ("set after parsing", set_after), ("given in the source", given)):
        assert check_project(tmp_path / what.replace(" ", "_"), files, "main.py")[0] is None, what
