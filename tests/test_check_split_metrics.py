"""Metrics of evaluation work split by hand over the ranks (issue 39, class 4: judge what the code computes).

1. A denoiser's validation images are dealt out with `files[hvd.rank()::hvd.size()]`; each rank sums its
   images' PSNR, and `hvd.allreduce` (whose default op averages) makes the mean of those sums. Divided by the
   whole list's length that is 1/hvd.size() of the job's PSNR; with op=hvd.Sum, or divided by this rank's own
   count, it is right.
2. A retrieval project's evaluator embeds the whole gallery on every rank, then each rank scores only its
   own queries (`torch.arange(hvd.rank(), n, hvd.size())`): the recall it returns is this rank's part's, and
   rank 0 reports it unaveraged. Averaged over the ranks, or scored on every query, it is right.
3. Per-rank recalls (means, made in a module's dict comprehension) summed with op=hvd.Sum and printed
   through `" ".join(f"{k} {v:.3f}" for k, v in metrics.items())`: hvd.size() times the recall.
Before these rules the three broken scripts passed step 8 as ok.

Written from scratch for these tests."""
import pytest

from crash_scripts import Source, check, check_project

DENOISE = Source('''
    """Train a small denoiser: horovodrun -np 4 python denoise.py --val-dir data/val"""
    import argparse
    import glob
    import os

    import horovod.torch as hvd
    import numpy as np
    import torch
    from torch import nn
    from torch.utils.data import DataLoader, TensorDataset
    from torch.utils.data.distributed import DistributedSampler


    def load(path):
        return torch.from_numpy(np.load(path).astype(np.float32))[None]


    def psnr(a, b):
        return 10 * torch.log10(1.0 / nn.functional.mse_loss(a, b))


    def main():
        ap = argparse.ArgumentParser()
        ap.add_argument("--val-dir", default="data/val")
        ap.add_argument("--lr", type=float, default=2e-4)
        ap.add_argument("--sigma", type=float, default=0.1)
        ap.add_argument("--epochs", type=int, default=5)
        args = ap.parse_args()
        hvd.init()
        torch.set_num_threads(1)
        torch.manual_seed(7)
        clean = torch.rand(512, 1, 32, 32)
        train = TensorDataset(clean + args.sigma * torch.randn_like(clean), clean)
        sampler = DistributedSampler(train, num_replicas=hvd.size(), rank=hvd.rank())
        loader = DataLoader(train, batch_size=16, sampler=sampler)
        val_files = sorted(glob.glob(os.path.join(args.val_dir, "*.npy")))
        mine = val_files[hvd.rank()::hvd.size()]
        net = nn.Sequential(nn.Conv2d(1, 32, 3, padding=1), nn.ReLU(), nn.Conv2d(32, 1, 3, padding=1))
        opt = torch.optim.Adam(net.parameters(), lr=args.lr * hvd.size())
        opt = hvd.DistributedOptimizer(opt, named_parameters=net.named_parameters())
        hvd.broadcast_parameters(net.state_dict(), root_rank=0)
        hvd.broadcast_optimizer_state(opt, root_rank=0)
        for epoch in range(args.epochs):
            sampler.set_epoch(epoch)
            for noisy, target in loader:
                opt.zero_grad()
                nn.functional.l1_loss(net(noisy), target).backward()
                opt.step()
            total = torch.zeros(1)
            with torch.no_grad():
                for path in mine:
                    x = load(path)
                    total += psnr(net(x + args.sigma * torch.randn_like(x)).clamp(0, 1), x)
            #REDUCE#
            if hvd.rank() == 0:
                print(f"epoch {epoch}: val PSNR {value:.2f} dB")
                torch.save(net.state_dict(), "denoiser.pt")


    if __name__ == "__main__":
        main()
''')

AVERAGED_OVER_ALL = 'value = hvd.allreduce(total, name="psnr").item() / len(val_files)'
SUMMED_OVER_ALL = 'value = hvd.allreduce(total, op=hvd.Sum, name="psnr").item() / len(val_files)'
AVERAGED_OVER_MINE = 'value = hvd.allreduce(total / len(mine), name="psnr").item()'


def test_an_average_of_per_rank_sums_over_the_whole_list_is_wrong(tmp_path):
    crash, flagged = check(tmp_path, DENOISE.replace("#REDUCE#", AVERAGED_OVER_ALL))
    assert crash is None and flagged == {8: "wrong"}


@pytest.mark.parametrize("reduce", [SUMMED_OVER_ALL, AVERAGED_OVER_MINE])
def test_a_summed_total_or_a_per_rank_mean_is_right(tmp_path, reduce):
    crash, flagged = check(tmp_path, DENOISE.replace("#REDUCE#", reduce))
    assert crash is None and flagged == {}


EVALUATOR = Source('''
    import horovod.torch as hvd
    import torch


    class GalleryRecall:
        """Text-to-image recall@K over a gallery embedded once per call."""

        def __init__(self, loader, ks=(1, 5)):
            self.loader, self.ks = loader, ks

        @torch.no_grad()
        def __call__(self, model):
            model.eval()
            images, texts = [], []
            for pixels, tokens in self.loader:
                images.append(model.embed_image(pixels))
                texts.append(model.embed_text(tokens))
            gallery, queries = torch.cat(images), torch.cat(texts)
            #QUERIES#
            sims = queries[rows] @ gallery.t()
            hit = sims.gather(1, rows[:, None])
            place = (sims > hit).sum(1)
            model.train()
            #RESULT#
''')

OWN_QUERIES = "rows = torch.arange(hvd.rank(), queries.shape[0], hvd.size())"
EVERY_QUERY = "rows = torch.arange(queries.shape[0])"
OWN_RECALL = 'return {k: (place < k).float().mean().item() for k in self.ks}'
AVERAGED_RECALL = ('return {k: hvd.allreduce((place < k).float().mean(), name=f"r{k}").item() '
                   'for k in self.ks}')

MODELS = '''
    import torch
    from torch import nn


    class TwoTower(nn.Module):
        def __init__(self, vocab=1000, dim=64):
            super().__init__()
            self.image = nn.Sequential(nn.Flatten(), nn.Linear(3 * 32 * 32, dim))
            self.text = nn.EmbeddingBag(vocab, dim)
            self.scale = nn.Parameter(torch.tensor(2.6))

        def embed_image(self, pixels):
            return nn.functional.normalize(self.image(pixels), dim=-1)

        def embed_text(self, tokens):
            return nn.functional.normalize(self.text(tokens), dim=-1)

        def forward(self, pixels, tokens):
            return self.embed_image(pixels), self.embed_text(tokens)
'''

TRAIN = '''
    """Contrastive image-text training: horovodrun -np 4 python train.py"""
    import argparse

    import horovod.torch as hvd
    import torch
    from torch import nn
    from torch.utils.data import DataLoader, TensorDataset
    from torch.utils.data.distributed import DistributedSampler

    from twotower.evaluate import GalleryRecall
    from twotower.models import TwoTower


    def clip_loss(model, img, txt):
        logits = model.scale.exp() * img @ txt.t()
        labels = torch.arange(len(img))
        return (nn.functional.cross_entropy(logits, labels) + nn.functional.cross_entropy(logits.t(), labels)) / 2


    def main():
        ap = argparse.ArgumentParser()
        ap.add_argument("--lr", type=float, default=5e-4)
        ap.add_argument("--epochs", type=int, default=3)
        args = ap.parse_args()
        hvd.init()
        torch.manual_seed(3)
        pairs = TensorDataset(torch.rand(1024, 3, 32, 32), torch.randint(0, 1000, (1024, 12)))
        sampler = DistributedSampler(pairs, num_replicas=hvd.size(), rank=hvd.rank())
        loader = DataLoader(pairs, batch_size=64, sampler=sampler, drop_last=True)
        held = TensorDataset(torch.rand(200, 3, 32, 32), torch.randint(0, 1000, (200, 12)))
        recall = GalleryRecall(DataLoader(held, batch_size=100))
        model = TwoTower()
        opt = torch.optim.AdamW(model.parameters(), lr=args.lr * hvd.size())
        opt = hvd.DistributedOptimizer(opt, named_parameters=model.named_parameters())
        hvd.broadcast_parameters(model.state_dict(), root_rank=0)
        hvd.broadcast_optimizer_state(opt, root_rank=0)
        for epoch in range(args.epochs):
            sampler.set_epoch(epoch)
            for pixels, tokens in loader:
                opt.zero_grad()
                clip_loss(model, *model(pixels, tokens)).backward()
                opt.step()
            scores = recall(model)
            if hvd.rank() == 0:
                print(f"epoch {epoch}: R@1 {scores[1]:.3f} R@5 {scores[5]:.3f}")
                torch.save(model.state_dict(), "twotower.pt")


    if __name__ == "__main__":
        main()
'''


def retrieval(queries, result):
    return {"train.py": TRAIN, "twotower/__init__.py": "", "twotower/models.py": MODELS,
            "twotower/evaluate.py": EVALUATOR.replace("#QUERIES#", queries).replace("#RESULT#", result)}


def test_recall_on_this_ranks_queries_reported_unaveraged_is_flagged(tmp_path):
    crash, flagged, findings = check_project(tmp_path, retrieval(OWN_QUERIES, OWN_RECALL))
    assert crash is None and flagged == {8: "missing"}
    assert "never averaged" in findings[8].evidence


@pytest.mark.parametrize("queries, result", [(OWN_QUERIES, AVERAGED_RECALL), (EVERY_QUERY, OWN_RECALL)])
def test_recall_averaged_or_on_every_query_is_right(tmp_path, queries, result):
    crash, flagged, _ = check_project(tmp_path, retrieval(queries, result))
    assert crash is None and flagged == {}


# 3. Each rank scores its own shard of the held-out pairs and the per-rank recalls (means) are summed over the
#    ranks: the sum of hvd.size() means, reported as the recall. Averaged, or divided by hvd.size(), it is
#    right (the shards are equal: a DistributedSampler pads them).
SCORING = '''
    import torch


    def recall_at(img, txt, ks=(1, 5)):
        order = (txt @ img.t()).argsort(1, descending=True)
        place = (order == torch.arange(len(img))[:, None]).nonzero()[:, 1]
        return {f"R@{k}": (place < k).float().mean().item() for k in ks}
'''

SHARDED_TRAIN = Source('''
    """Contrastive image-text training: horovodrun -np 4 python train.py"""
    import argparse

    import horovod.torch as hvd
    import torch
    from torch import nn
    from torch.utils.data import DataLoader, TensorDataset
    from torch.utils.data.distributed import DistributedSampler

    from twotower.models import TwoTower
    from twotower.scoring import recall_at


    def validate(model, loader):
        model.eval()
        images, texts = [], []
        with torch.no_grad():
            for pixels, tokens in loader:
                a, b = model(pixels, tokens)
                images.append(a)
                texts.append(b)
        local = recall_at(torch.cat(images), torch.cat(texts))
        model.train()
        return {k: #REDUCE# for k, v in local.items()}


    def main():
        ap = argparse.ArgumentParser()
        ap.add_argument("--lr", type=float, default=5e-4)
        ap.add_argument("--epochs", type=int, default=3)
        args = ap.parse_args()
        hvd.init()
        torch.manual_seed(3)
        pairs = TensorDataset(torch.rand(1024, 3, 32, 32), torch.randint(0, 1000, (1024, 12)))
        sampler = DistributedSampler(pairs, num_replicas=hvd.size(), rank=hvd.rank())
        loader = DataLoader(pairs, batch_size=64, sampler=sampler, drop_last=True)
        held = TensorDataset(torch.rand(400, 3, 32, 32), torch.randint(0, 1000, (400, 12)))
        held_sampler = DistributedSampler(held, num_replicas=hvd.size(), rank=hvd.rank(), shuffle=False)
        held_loader = DataLoader(held, batch_size=100, sampler=held_sampler)
        model = TwoTower()
        opt = torch.optim.AdamW(model.parameters(), lr=args.lr * hvd.size())
        opt = hvd.DistributedOptimizer(opt, named_parameters=model.named_parameters())
        hvd.broadcast_parameters(model.state_dict(), root_rank=0)
        hvd.broadcast_optimizer_state(opt, root_rank=0)
        for epoch in range(args.epochs):
            sampler.set_epoch(epoch)
            for pixels, tokens in loader:
                opt.zero_grad()
                img, txt = model(pixels, tokens)
                logits = model.scale.exp() * img @ txt.t()
                nn.functional.cross_entropy(logits, torch.arange(len(img))).backward()
                opt.step()
            metrics = validate(model, held_loader)
            if hvd.rank() == 0:
                print(f"epoch {epoch} val " + " ".join(f"{k} {v:.3f}" for k, v in metrics.items()))
                torch.save(model.state_dict(), "twotower.pt")


    if __name__ == "__main__":
        main()
''')

SUMMED_MEANS = 'hvd.allreduce(torch.tensor(v), op=hvd.Sum, name=f"val_{k}").item()'
AVERAGED_MEANS = 'hvd.allreduce(torch.tensor(v), name=f"val_{k}").item()'
SUMMED_OVER_SIZE = 'hvd.allreduce(torch.tensor(v), op=hvd.Sum, name=f"val_{k}").item() / hvd.size()'


def sharded(reduce):
    return {"train.py": SHARDED_TRAIN.replace("#REDUCE#", reduce), "twotower/__init__.py": "",
            "twotower/models.py": MODELS, "twotower/scoring.py": SCORING}


def test_per_rank_recalls_summed_over_ranks_and_reported_are_wrong(tmp_path):
    crash, flagged, findings = check_project(tmp_path, sharded(SUMMED_MEANS))
    assert crash is None and flagged == {8: "wrong"}
    assert "reports the sum" in findings[8].evidence


@pytest.mark.parametrize("reduce", [AVERAGED_MEANS, SUMMED_OVER_SIZE])
def test_per_rank_recalls_averaged_over_ranks_are_right(tmp_path, reduce):
    crash, flagged, _ = check_project(tmp_path, sharded(reduce))
    assert crash is None and flagged == {}
