"""A broadcast that runs only when the run resumes (issue 39, class 4: a verdict on the default run). The
project's checkpoint module returns early when its own checkpoint file is not there, and broadcasts after the
load: a fresh run, which has no checkpoint yet, never broadcasts, and each rank trains from its own seed.
Broadcasting whether or not a checkpoint was loaded is right; a guard on a file the project does not write (a
pretrained model handed in) is not judged by this rule. Before the rule the first passed as "cannot tell".

Written from scratch for these tests: a torch captioning project with a `capt` package."""
import pytest

from crash_scripts import Source, check_project

CHECKPOINTS = Source('''
    import os

    import horovod.torch as hvd
    import torch


    def save(model, optimizer, epoch, folder):
        if hvd.rank() == 0:
            os.makedirs(folder, exist_ok=True)
            torch.save({"model": model.state_dict(), "optimizer": optimizer.state_dict(), "epoch": epoch},
                       os.path.join(folder, "latest.ckpt"))


    def resume(model, optimizer, folder):
        """The epoch to start from; rank 0 loads the checkpoint and sends it to the others."""
        path = os.path.join(folder, #FILE#)
        #EARLY#
        start = 0
        if hvd.rank() == 0 and os.path.exists(path):
            state = torch.load(path, map_location="cpu")
            model.load_state_dict(state["model"])
            optimizer.load_state_dict(state["optimizer"])
            start = state["epoch"] + 1
        hvd.broadcast_parameters(model.state_dict(), root_rank=0)
        hvd.broadcast_optimizer_state(optimizer, root_rank=0)
        return hvd.broadcast_object(start, root_rank=0)
''')

MODEL = '''
    from torch import nn


    class Captioner(nn.Module):
        def __init__(self, vocab=5000, dim=128):
            super().__init__()
            self.encode = nn.Sequential(nn.Flatten(), nn.Linear(3 * 32 * 32, dim))
            self.embed = nn.Embedding(vocab, dim)
            self.rnn = nn.GRU(dim, dim, batch_first=True)
            self.head = nn.Linear(dim, vocab)

        def forward(self, pixels, tokens):
            h0 = self.encode(pixels)[None]
            out, _ = self.rnn(self.embed(tokens), h0)
            return self.head(out)
'''

TRAIN = '''
    """Image captioning: horovodrun -np 4 python train.py --out runs/capt"""
    import argparse

    import horovod.torch as hvd
    import torch
    from torch import nn
    from torch.utils.data import DataLoader, TensorDataset
    from torch.utils.data.distributed import DistributedSampler

    from capt.checkpoints import resume, save
    from capt.model import Captioner


    def main():
        ap = argparse.ArgumentParser()
        ap.add_argument("--out", default="runs/capt")
        ap.add_argument("--lr", type=float, default=3e-4)
        ap.add_argument("--epochs", type=int, default=10)
        ap.add_argument("--seed", type=int, default=0)
        args = ap.parse_args()
        hvd.init()
        torch.manual_seed(args.seed + hvd.rank())
        data = TensorDataset(torch.rand(2048, 3, 32, 32), torch.randint(0, 5000, (2048, 16)))
        sampler = DistributedSampler(data, num_replicas=hvd.size(), rank=hvd.rank())
        loader = DataLoader(data, batch_size=32, sampler=sampler)
        model = Captioner()
        opt = torch.optim.Adam(model.parameters(), lr=args.lr * hvd.size())
        start = resume(model, opt, args.out)
        opt = hvd.DistributedOptimizer(opt, named_parameters=model.named_parameters())
        for epoch in range(start, args.epochs):
            sampler.set_epoch(epoch)
            for pixels, tokens in loader:
                opt.zero_grad()
                logits = model(pixels, tokens[:, :-1])
                nn.functional.cross_entropy(logits.reshape(-1, 5000), tokens[:, 1:].reshape(-1)).backward()
                opt.step()
            save(model, opt, epoch, args.out)


    if __name__ == "__main__":
        main()
'''

EARLY_RETURN = '''if not os.path.exists(path):
            return 0'''


def project(early, file='"latest.ckpt"'):
    return {"train.py": TRAIN, "capt/__init__.py": "", "capt/model.py": MODEL,
            "capt/checkpoints.py": CHECKPOINTS.replace("#EARLY#", early).replace("#FILE#", file)}


def test_a_broadcast_only_when_the_own_checkpoint_exists_is_wrong(tmp_path):
    crash, flagged, findings = check_project(tmp_path, project(EARLY_RETURN))
    assert crash is None and flagged == {6: "wrong"}
    assert "a fresh run" in findings[6].evidence and findings[6].file == "capt/checkpoints.py"


@pytest.mark.parametrize("early, file", [("pass", '"latest.ckpt"'), (EARLY_RETURN, '"imagenet_init.pth"')])
def test_a_broadcast_on_every_run_or_behind_a_file_not_written_here_is_not_wrong(tmp_path, early, file):
    crash, flagged, _ = check_project(tmp_path, project(early, file))
    assert crash is None and flagged == {}
