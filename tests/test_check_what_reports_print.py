"""What a report prints, read by what the code computes (issue 39, class 4), from the blind sets zzzi and zzzj:

1. Rank 0 alone runs a retrieval evaluation over the whole test set, whose recall is read off
   `sim.topk(k).indices`: a field of what a call computes is a value of the model's output, so the report of
   `*rec.values()` is that evaluation's, and rank 0's evaluation of the whole data is the job's.
2. Beside it, rank 0 prints the last step's loss once per epoch: progress, not a measure of its shard. A
   running accuracy over the epoch printed there instead is rank 0's shard reported as the job's.
3. One helper sums over ranks both the throughput (a rate made with a clock: rightly summed) and the
   validation loss total with its token count (divided afterwards): the throughput's report is not the
   validation sum's. A per-rank mean loss summed with the same helper and printed is wrong.
Before these rules, 2's right script was flagged "never averaged" (with either rule of 1 or 2 taken back),
and 3's right script "reports the sum as its value".

Written from scratch for these tests."""
import pytest

from crash_scripts import Source, check

RETRIEVAL = Source('''
    """Deep metric learning on a product catalogue: horovodrun -np 4 python train_embed.py"""
    import argparse

    import horovod.torch as hvd
    import torch
    from torch import nn
    from torch.utils.data import DataLoader, TensorDataset
    from torch.utils.data.distributed import DistributedSampler


    @torch.no_grad()
    def recall_at(model, loader, ks=(1, 4)):
        model.eval()
        embs, labels = [], []
        for x, y in loader:
            embs.append(nn.functional.normalize(model(x), dim=1))
            labels.append(y)
        e, y = torch.cat(embs), torch.cat(labels)
        sim = e @ e.t()
        sim.fill_diagonal_(-2)
        nearest = sim.topk(max(ks), dim=1).indices
        hits = y[nearest] == y[:, None]
        model.train()
        return {k: hits[:, :k].any(1).float().mean().item() for k in ks}


    def main():
        ap = argparse.ArgumentParser()
        ap.add_argument("--lr", type=float, default=1e-3)
        ap.add_argument("--epochs", type=int, default=10)
        args = ap.parse_args()
        hvd.init()
        torch.manual_seed(0)
        train = TensorDataset(torch.randn(4096, 64), torch.randint(0, 100, (4096,)))
        sampler = DistributedSampler(train, num_replicas=hvd.size(), rank=hvd.rank())
        loader = DataLoader(train, batch_size=128, sampler=sampler)
        test_loader = DataLoader(TensorDataset(torch.randn(1000, 64), torch.randint(0, 100, (1000,))),
                                 batch_size=250)
        model = nn.Sequential(nn.Linear(64, 128), nn.ReLU(), nn.Linear(128, 32))
        head = nn.Linear(32, 100)
        params = list(model.parameters()) + list(head.parameters())
        opt = torch.optim.SGD(params, lr=args.lr * hvd.size(), momentum=0.9)
        hvd.broadcast_parameters(model.state_dict(), root_rank=0)
        hvd.broadcast_parameters(head.state_dict(), root_rank=0)
        opt = hvd.DistributedOptimizer(opt, named_parameters=list(model.named_parameters()) +
                                       list(head.named_parameters(prefix="head")))
        correct = torch.zeros(())
        for epoch in range(args.epochs):
            sampler.set_epoch(epoch)
            for x, y in loader:
                logits = head(model(x))
                loss = nn.functional.cross_entropy(logits, y)
                opt.zero_grad()
                loss.backward()
                opt.step()
                correct += (logits.argmax(1) == y).sum()
            if hvd.rank() == 0:
                #LOG#
                rec = recall_at(model, test_loader)
                print("epoch %d  R@1 %.4f  R@4 %.4f" % (epoch, *rec.values()))
                torch.save(model.state_dict(), "embed.pt")


    if __name__ == "__main__":
        main()
''')

LAST_LOSS = 'print("epoch %d loss %.4f" % (epoch, loss.item()))'
RUNNING_ACCURACY = 'print("epoch %d train acc %.4f" % (epoch, correct.item() / len(sampler) / (epoch + 1)))'


@pytest.mark.parametrize("log", ["pass", LAST_LOSS])
def test_rank0s_whole_evaluation_beside_progress_is_the_jobs_metric(tmp_path, log):
    crash, flagged = check(tmp_path, RETRIEVAL.replace("#LOG#", log))
    assert crash is None and flagged == {}


def test_rank0s_running_accuracy_of_its_shard_beside_it_is_flagged(tmp_path):
    crash, flagged = check(tmp_path, RETRIEVAL.replace("#LOG#", RUNNING_ACCURACY))
    assert crash is None and flagged == {8: "missing"}


SUMS = Source('''
    """Translation with a token budget: horovodrun -np 4 python train_nmt.py"""
    import argparse
    import time

    import horovod.torch as hvd
    import torch
    from torch import nn
    from torch.utils.data import DataLoader, TensorDataset
    from torch.utils.data.distributed import DistributedSampler


    def reduce_sum(values, name):
        return hvd.allreduce(torch.tensor(values, dtype=torch.float64), op=hvd.Sum, name=name).tolist()


    def validate(model, loader):
        model.eval()
        total, count = 0.0, 0
        with torch.no_grad():
            for src, tgt in loader:
                loss = nn.functional.cross_entropy(model(src).flatten(0, 1), tgt.flatten(), reduction="sum")
                total += loss.item()
                count += tgt.numel()
        model.train()
        #VALID#


    def main():
        ap = argparse.ArgumentParser()
        ap.add_argument("--lr", type=float, default=5e-4)
        ap.add_argument("--epochs", type=int, default=4)
        args = ap.parse_args()
        hvd.init()
        torch.manual_seed(1)
        pairs = TensorDataset(torch.randint(0, 500, (2048, 20)), torch.randint(0, 500, (2048, 20)))
        sampler = DistributedSampler(pairs, num_replicas=hvd.size(), rank=hvd.rank())
        loader = DataLoader(pairs, batch_size=32, sampler=sampler)
        held = TensorDataset(torch.randint(0, 500, (256, 20)), torch.randint(0, 500, (256, 20)))
        held_sampler = DistributedSampler(held, num_replicas=hvd.size(), rank=hvd.rank(), shuffle=False)
        held_loader = DataLoader(held, batch_size=64, sampler=held_sampler)
        model = nn.Sequential(nn.Embedding(500, 64), nn.Linear(64, 500))
        opt = torch.optim.Adam(model.parameters(), lr=args.lr * hvd.size())
        opt = hvd.DistributedOptimizer(opt, named_parameters=model.named_parameters())
        hvd.broadcast_parameters(model.state_dict(), root_rank=0)
        hvd.broadcast_optimizer_state(opt, root_rank=0)
        for epoch in range(args.epochs):
            sampler.set_epoch(epoch)
            t0, tokens = time.time(), 0
            for src, tgt in loader:
                opt.zero_grad()
                nn.functional.cross_entropy(model(src).flatten(0, 1), tgt.flatten()).backward()
                opt.step()
                tokens += tgt.numel()
            wps = reduce_sum([tokens / (time.time() - t0)], "wps")[0]
            vloss = validate(model, held_loader)
            if hvd.rank() == 0:
                print("epoch %d  %.0f tokens/s  valid loss %.3f" % (epoch, wps, vloss))
                torch.save(model.state_dict(), "nmt.pt")


    if __name__ == "__main__":
        main()
''')

TOTALS = '''tot, n = reduce_sum([total, count], "valid")
        return tot / n'''
MEANS = '''return reduce_sum([total / count], "valid")[0]'''


def test_a_helper_summing_a_rate_and_a_loss_total_is_right(tmp_path):
    crash, flagged = check(tmp_path, SUMS.replace("#VALID#", TOTALS))
    assert crash is None and flagged == {}


def test_the_same_helper_summing_per_rank_mean_losses_is_wrong(tmp_path):
    crash, flagged = check(tmp_path, SUMS.replace("#VALID#", MEANS))
    assert crash is None and flagged == {8: "wrong"}
