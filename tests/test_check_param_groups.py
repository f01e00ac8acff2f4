"""torch param groups that set their own LR, and named_parameters across two models (issue 39, classes 4
and 5):

- `SGD([{"params": backbone.parameters(), "lr": lr}, {"params": head.parameters(), "lr": lr * 10}])` takes
  no optimizer-wide LR: no group trains at the default, so step 4 judges the groups' LR (scaled: ok; not
  scaled: missing), not "uses its default LR";
- `hvd.DistributedOptimizer(opt, named_parameters=backbone.named_parameters())` while the optimizer also
  trains a second model (a face-recognition margin head) raises ValueError where it is made: step 5 is wrong
  and the same query gives the crash; naming both models' parameters is fine.

A face-embedding trainer written from scratch for these tests."""
import textwrap

from crash_scripts import Source, check, line_of

TRAINER = Source(textwrap.dedent("""
    import argparse
    import itertools

    import torch
    import horovod.torch as hvd
    from torch.utils.data import DataLoader, TensorDataset
    from torch.utils.data.distributed import DistributedSampler


    class MarginHead(torch.nn.Module):
        def __init__(self, dim, classes, scale=30.0):
            super().__init__()
            self.weight = torch.nn.Parameter(torch.randn(classes, dim) * 0.01)
            self.scale = scale

        def forward(self, emb):
            w = torch.nn.functional.normalize(self.weight, dim=1)
            return self.scale * torch.nn.functional.normalize(emb, dim=1) @ w.t()


    def main():
        p = argparse.ArgumentParser()
        p.add_argument("--lr", type=float, default=0.05)
        p.add_argument("--head-lr-mult", type=float, default=10.0)
        p.add_argument("--epochs", type=int, default=4)
        args = p.parse_args()
        hvd.init()
        torch.set_num_threads(1)
        data = TensorDataset(torch.randn(1024, 32), torch.randint(0, 50, (1024,)))
        sampler = DistributedSampler(data, num_replicas=hvd.size(), rank=hvd.rank())
        loader = DataLoader(data, batch_size=32, sampler=sampler)
        backbone = torch.nn.Sequential(torch.nn.Linear(32, 64), torch.nn.ReLU(), torch.nn.Linear(64, 16))
        head = MarginHead(16, 50)
        lr = args.lr * hvd.size()
        optimizer = torch.optim.SGD([
            {"params": backbone.parameters(), "lr": lr},
            {"params": head.parameters(), "lr": lr * args.head_lr_mult},
        ], momentum=0.9)
        optimizer = hvd.DistributedOptimizer(
            optimizer, named_parameters=itertools.chain(backbone.named_parameters(), head.named_parameters()))
        hvd.broadcast_parameters(backbone.state_dict(), root_rank=0)
        hvd.broadcast_parameters(head.state_dict(), root_rank=0)
        hvd.broadcast_optimizer_state(optimizer, root_rank=0)
        for epoch in range(args.epochs):
            sampler.set_epoch(epoch)
            for x, y in loader:
                optimizer.zero_grad()
                torch.nn.functional.cross_entropy(head(backbone(x)), y).backward()
                optimizer.step()
            if hvd.rank() == 0:
                torch.save({"backbone": backbone.state_dict(), "head": head.state_dict()}, "face.pt")


    if __name__ == "__main__":
        main()
""").lstrip())


def test_the_correct_trainer_has_no_flag_and_no_crash(tmp_path):
    assert check(tmp_path, TRAINER) == (None, {})


def test_groups_that_set_their_own_lr_are_judged_by_it(tmp_path):
    unscaled = TRAINER.replace("lr = args.lr * hvd.size()", "lr = args.lr")
    assert check(tmp_path, unscaled) == (None, {4: "missing"})
    # a group without its own "lr" trains at the optimizer's default, which is not scaled
    default = TRAINER.replace('{"params": head.parameters(), "lr": lr * args.head_lr_mult}',
                              '{"params": head.parameters()}')
    assert check(tmp_path, default) == (None, {4: "missing"})


def test_naming_one_model_while_the_optimizer_trains_two_is_the_crash(tmp_path):
    broken = TRAINER.replace(
        "named_parameters=itertools.chain(backbone.named_parameters(), head.named_parameters()))",
        "named_parameters=backbone.named_parameters())")
    crash, flagged = check(tmp_path, broken)
    assert crash == {"line": line_of(broken, "optimizer = hvd.DistributedOptimizer("), "file": None,
                     "error": "ValueError: named_parameters was specified, but one or more model parameters were "
                              "not named",
                     "why": "the optimizer holds head.parameters(), which backbone.named_parameters() does not "
                            "contain"}
    assert flagged == {5: "wrong"}
