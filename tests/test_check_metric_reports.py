"""`hvdkit check`, step 8, on what a report prints:

- a metric computed a few steps away from the model's output (a Dice score built from `.sum().item()` counts
  of a prediction, appended to a list, averaged by the helper that returns it) is still the model's metric:
  a segmentation project whose every rank scores the whole validation set is right without averaging; its
  twin, whose validation loader is sharded and whose score is never averaged, is flagged at the line that
  prints the score, not at the training log printed before it;
- one element of a summed tensor (`totals[2]`, the steps counted over all ranks) printed as a sum is a count,
  not a metric reported as a sum; the summed loss printed undivided is;
- a training log with no evaluation seen, and after the training a call into a module that is not there,
  handed nothing (`train()` then `evaluate()`): it may evaluate the saved model on every rank: cannot tell.

Written from scratch for these tests in the shapes real code has: a package with a data module, an engine
module with the loops and an entry that logs through `logging` on rank 0; a language model that sums its
statistics in one tensor; a flat script whose evaluation lives in a module of its repository."""
import textwrap

from crash_scripts import Source, check, check_project, line_of


def src(text):
    return Source(textwrap.dedent(text).lstrip())


SEG = {
    "seg/__init__.py": src("""
    """),
    "seg/engine.py": src("""
        import torch
        import torch.nn.functional as F


        def train_one_epoch(model, loader, optimizer):
            model.train()
            total = 0.0
            for step, (img, lab) in enumerate(loader):
                optimizer.zero_grad()
                loss = F.cross_entropy(model(img), lab)
                loss.backward()
                optimizer.step()
                total += loss.item()
            return total / max(step + 1, 1)


        @torch.no_grad()
        def evaluate(model, loader):
            model.eval()
            scores = []
            for img, lab in loader:
                pred = model(img).argmax(1)
                inter = ((pred == 1) & (lab == 1)).sum().item()
                denom = (pred == 1).sum().item() + (lab == 1).sum().item()
                scores.append(2.0 * inter / denom if denom else 1.0)
            return sum(scores) / max(len(scores), 1)
    """),
    "seg/data.py": src("""
        import torch
        from torch.utils.data import DataLoader, TensorDataset
        from torch.utils.data.distributed import DistributedSampler
        import horovod.torch as hvd


        def _volumes(n, seed):
            g = torch.Generator().manual_seed(seed)
            return TensorDataset(torch.randn(n, 1, 16, 16, generator=g), torch.randint(0, 2, (n, 16, 16), generator=g))


        def train_loader(batch):
            ds = _volumes(256, 0)
            sampler = DistributedSampler(ds, num_replicas=hvd.size(), rank=hvd.rank(), shuffle=True)
            return DataLoader(ds, batch_size=batch, sampler=sampler, drop_last=True), sampler


        def val_loader():
            ds = _volumes(20, 1)
            return DataLoader(ds, batch_size=1, shuffle=False)
    """),
    "main.py": src("""
        import logging

        import torch
        import horovod.torch as hvd

        from seg.data import train_loader, val_loader
        from seg.engine import evaluate, train_one_epoch


        def main(epochs=4, base_lr=1e-3):
            hvd.init()
            torch.set_num_threads(1)
            logging.basicConfig(level=logging.INFO if hvd.rank() == 0 else logging.WARNING)
            log = logging.getLogger("main")
            train, sampler = train_loader(8)
            val = val_loader()
            model = torch.nn.Conv2d(1, 2, 3, padding=1)
            lr = base_lr * hvd.size()
            optimizer = torch.optim.Adam(model.parameters(), lr=lr)
            optimizer = hvd.DistributedOptimizer(optimizer, named_parameters=model.named_parameters())
            hvd.broadcast_parameters(model.state_dict(), root_rank=0)
            hvd.broadcast_optimizer_state(optimizer, root_rank=0)
            for epoch in range(epochs):
                sampler.set_epoch(epoch)
                loss = train_one_epoch(model, train, optimizer)
                log.info("epoch %d train loss %.4f lr %.2e", epoch, loss, lr)
                dice = evaluate(model, val)
                log.info("epoch %d val dice %.4f", epoch, dice)
                if hvd.rank() == 0:
                    torch.save(model.state_dict(), "last.pt")


        if __name__ == "__main__":
            main()
    """),
}
SHARDED_VAL = {**SEG, "seg/data.py": SEG["seg/data.py"].replace(
    "    return DataLoader(ds, batch_size=1, shuffle=False)",
    "    sampler = DistributedSampler(ds, num_replicas=hvd.size(), rank=hvd.rank(), shuffle=False)\n"
    "    return DataLoader(ds, batch_size=1, sampler=sampler)")}


def test_whole_validation_set_scored_on_every_rank_is_the_jobs_metric(tmp_path):
    crash, flagged, findings = check_project(tmp_path / "seg", SEG, "main.py")
    assert crash is None and flagged == {}
    assert "whole evaluation data" in findings[8].evidence


def test_sharded_validation_score_never_averaged_is_flagged_at_its_report(tmp_path):
    crash, flagged, findings = check_project(tmp_path / "seg", SHARDED_VAL, "main.py")
    assert crash is None and flagged == {8: "missing"}
    assert findings[8].line == line_of(SEG["main.py"], "val dice")


CHARLM = src("""
    import torch
    import torch.nn as nn
    import horovod.torch as hvd

    hvd.init()
    torch.set_num_threads(1)
    torch.manual_seed(0)
    text = torch.randint(0, 64, (40000,))
    mine = text[hvd.rank()::hvd.size()]
    model = nn.Sequential(nn.Embedding(64, 32), nn.Linear(32, 64))
    opt = torch.optim.Adam(model.parameters(), lr=1e-3 * hvd.size())
    opt = hvd.DistributedOptimizer(opt, named_parameters=model.named_parameters())
    hvd.broadcast_parameters(model.state_dict(), root_rank=0)
    xent = nn.CrossEntropyLoss(reduction="sum")
    for epoch in range(3):
        nll_sum, n_tok, steps = 0.0, 0, 0
        for i in range(0, len(mine) - 65, 64):
            inp, tgt = mine[i:i + 64], mine[i + 1:i + 65]
            opt.zero_grad()
            loss_sum = xent(model(inp), tgt)
            (loss_sum / tgt.numel()).backward()
            opt.step()
            nll_sum += loss_sum.item()
            n_tok += tgt.numel()
            steps += 1
        totals = hvd.allreduce(torch.tensor([nll_sum, float(n_tok), float(steps)]), op=hvd.Sum, name="nll")
        if hvd.rank() == 0:
            print(f"epoch {epoch}: nll {(totals[0] / totals[1]).item():.3f}, {int(totals[2])} steps in all")
            torch.save(model.state_dict(), "lm.pt")
""")


def test_a_count_element_of_a_summed_tensor_printed_as_a_sum_is_right(tmp_path):
    crash, flagged = check(tmp_path, CHARLM)
    assert crash is None and flagged == {}


def test_the_summed_loss_element_printed_undivided_is_wrong(tmp_path):
    crash, flagged = check(tmp_path, CHARLM.replace("{int(totals[2])} steps in all", "{totals[0]:.1f} nats in all"))
    assert crash is None and flagged == {8: "wrong"}


SEGNET = src("""
    import torch
    import torch.nn.functional as F
    import horovod.torch as hvd
    from torch.utils.data import DataLoader, TensorDataset
    from torch.utils.data.distributed import DistributedSampler

    from evaluate import evaluate


    def train(epochs=2, save_to="model_final.pth"):
        hvd.init()
        torch.set_num_threads(1)
        data = TensorDataset(torch.randn(256, 1, 16, 16), torch.randint(0, 2, (256, 16, 16)))
        sampler = DistributedSampler(data, num_replicas=hvd.size(), rank=hvd.rank())
        loader = DataLoader(data, batch_size=8, sampler=sampler)
        net = torch.nn.Conv2d(1, 2, 3, padding=1)
        optim = torch.optim.SGD(net.parameters(), lr=0.01 * hvd.size())
        optim = hvd.DistributedOptimizer(optim, named_parameters=net.named_parameters())
        hvd.broadcast_parameters(net.state_dict(), root_rank=0)
        for epoch in range(epochs):
            sampler.set_epoch(epoch)
            losses = []
            for img, lab in loader:
                optim.zero_grad()
                loss = F.cross_entropy(net(img), lab)
                loss.backward()
                optim.step()
                losses.append(loss.item())
            if hvd.rank() == 0:
                print(f"epoch {epoch} loss {sum(losses) / len(losses):.4f}")
        if hvd.rank() == 0:
            torch.save(net.state_dict(), save_to)


    if __name__ == "__main__":
        train()
        evaluate()
""")


def test_an_unread_evaluation_after_training_is_cannot_tell(tmp_path):
    crash, flagged = check(tmp_path, SEGNET)
    assert crash is None and flagged == {}


def test_without_it_the_training_log_of_rank_0_is_flagged(tmp_path):
    crash, flagged = check(tmp_path, SEGNET.replace("    evaluate()\n", ""))
    assert crash is None and flagged == {8: "missing"}


BENCH = src("""
    import time

    import torch
    import torch.nn.functional as F
    import horovod.torch as hvd
    from torch.utils.data import DataLoader, TensorDataset
    from torch.utils.data.distributed import DistributedSampler


    def make_loader(ds, batch_size, distributed=False):
        sampler = None
        if distributed:
            sampler = DistributedSampler(ds, num_replicas=hvd.size(), rank=hvd.rank())
        return DataLoader(ds, batch_size=batch_size, sampler=sampler)


    def main(epochs=2):
        hvd.init()
        torch.set_num_threads(1)
        train = make_loader(TensorDataset(torch.randn(512, 8), torch.randint(0, 2, (512,))), 32, distributed=True)
        val = make_loader(TensorDataset(torch.randn(128, 8), torch.randint(0, 2, (128,))), 64VAL)
        model = torch.nn.Linear(8, 2)
        opt = torch.optim.SGD(model.parameters(), lr=0.01 * hvd.size())
        opt = hvd.DistributedOptimizer(opt, named_parameters=model.named_parameters())
        hvd.broadcast_parameters(model.state_dict(), root_rank=0)
        for epoch in range(epochs):
            seen, t0 = 0, time.perf_counter()
            for x, y in train:
                opt.zero_grad()
                F.cross_entropy(model(x), y).backward()
                opt.step()
                seen += len(x)
            rate = hvd.allreduce(torch.tensor(seen / (time.perf_counter() - t0)), op=hvd.Sum, name="rate").item()
            with torch.no_grad():
                hits = sum((model(x).argmax(1) == y).sum().item() for x, y in val)
            if hvd.rank() == 0:
                print(f"epoch {epoch}: {rate:.0f} samples/s in all, val acc {hits / 128:.3f}")
                torch.save(model.state_dict(), "m.pt")


    if __name__ == "__main__":
        main()
""")


def test_a_throughput_summed_over_ranks_beside_a_whole_data_evaluation_is_right(tmp_path):
    # the helper shards only where told to: the validation loader, made with its default, is the whole set
    crash, flagged = check(tmp_path, BENCH.replace("64VAL", "64"))
    assert crash is None and flagged == {}


def test_a_validation_loader_the_helper_shards_is_each_ranks_part(tmp_path):
    crash, flagged = check(tmp_path, BENCH.replace("64VAL", "64, distributed=True"))
    assert crash is None and flagged == {8: "missing"}



METER = """
class Meter:
    def __init__(self):
        self.spans = []
        self._t = None

    def tick(self):
        self._t = time.perf_counter()

    def tock(self, samples):
        self.spans.append((time.perf_counter() - self._t, samples))

    def rate(self):
        seconds = sum(dt for dt, _ in self.spans)
        return sum(n for _, n in self.spans) / seconds if seconds else 0.0


"""


def test_a_meters_rate_summed_over_ranks_is_the_jobs_rate(tmp_path):
    # the clock is read in the meter's own methods (a timer class of the repository): samples per second,
    # summed over the ranks, is the job's throughput
    src_ = BENCH.replace("64VAL", "64").replace("\n\ndef make_loader", "\n\n" + METER + "def make_loader")
    src_ = src_.replace("seen, t0 = 0, time.perf_counter()", "meter = Meter()").replace(
        "            opt.zero_grad()\n", "            meter.tick()\n            opt.zero_grad()\n").replace(
        "seen += len(x)", "meter.tock(len(x))").replace(
        "torch.tensor(seen / (time.perf_counter() - t0))", "torch.tensor(meter.rate())")
    assert "class Meter" in src_ and "meter.tick()" in src_
    crash, flagged = check(tmp_path, src_)
    assert crash is None and flagged == {}
