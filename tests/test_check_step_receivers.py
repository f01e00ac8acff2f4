"""`.step()` on an object of the project's own class (an early stopper, a meter) is no optimizer step: a
rank guard around it stays a rank guard for what it encloses. Seen in a blind held-out project: the early
stopper's `stopper.step(mrr)` under `if IS_MAIN:` made that guard "the training's path", so the rank-0 save
beside it read as "every rank writes". A project class over a library optimizer is still an optimizer.

A passage-ranker project written from scratch for these tests (main.py, ranker/utils.py, ranker/optim.py)."""
import textwrap

from crash_scripts import Source, check_project

MAIN = Source(textwrap.dedent("""
    import argparse

    import torch
    import horovod.torch as hvd

    from ranker.utils import EarlyStopping

    hvd.init()
    IS_MAIN = hvd.rank() == 0


    def main(args):
        torch.set_num_threads(1)
        torch.manual_seed(args.seed)
        x = torch.randn(4096, 32)
        y = (x[:, 0] > 0).long()
        part = slice(hvd.rank(), None, hvd.size())
        x_train, y_train = x[part], y[part]
        model = torch.nn.Sequential(torch.nn.Linear(32, 64), torch.nn.ReLU(), torch.nn.Linear(64, 2))
        optimizer = torch.optim.AdamW(model.parameters(), lr=args.lr * hvd.size())
        optimizer = hvd.DistributedOptimizer(optimizer, named_parameters=model.named_parameters())
        hvd.broadcast_parameters(model.state_dict(), root_rank=0)
        hvd.broadcast_optimizer_state(optimizer, root_rank=0)
        stopper = EarlyStopping(args.patience)
        for epoch in range(args.epochs):
            for i in range(0, len(x_train), 64):
                optimizer.zero_grad()
                loss = torch.nn.functional.cross_entropy(model(x_train[i:i + 64]), y_train[i:i + 64])
                loss.backward()
                optimizer.step()
            correct = torch.tensor([(model(x_train).argmax(1) == y_train).sum().item(), len(y_train)],
                                   dtype=torch.float64)
            correct = hvd.allreduce(correct, op=hvd.Sum, name="accuracy")
            acc = (correct[0] / correct[1]).item()
            stop = False
            if IS_MAIN:
                improved, stop = stopper.step(acc)
                print(f"epoch {epoch}: accuracy {acc:.4f}")
                if improved:
                    torch.save(model.state_dict(), args.save)
            if hvd.broadcast_object(stop, root_rank=0, name="stop"):
                break


    if __name__ == "__main__":
        p = argparse.ArgumentParser()
        p.add_argument("--lr", type=float, default=1e-3)
        p.add_argument("--epochs", type=int, default=20)
        p.add_argument("--patience", type=int, default=3)
        p.add_argument("--seed", type=int, default=0)
        p.add_argument("--save", default="ranker.pt")
        main(p.parse_args())
""").lstrip())

UTILS = textwrap.dedent("""
    class EarlyStopping:
        def __init__(self, patience):
            self.patience, self.best, self.bad = patience, float("-inf"), 0

        def step(self, value):
            if value > self.best:
                self.best, self.bad = value, 0
                return True, False
            self.bad += 1
            return False, self.bad >= self.patience
""").lstrip()


def test_a_rank0_save_beside_a_stoppers_step_is_rank0(tmp_path):
    crash, flagged, findings = check_project(tmp_path, {"main.py": MAIN, "ranker/__init__.py": "",
                                                        "ranker/utils.py": UTILS}, script="main.py")
    assert (crash, flagged) == (None, {})
    assert "rank 0 writes" in findings[7].evidence


def test_the_save_outside_the_rank_guard_is_every_rank(tmp_path):
    broken = MAIN.replace("""            if improved:
                torch.save(model.state_dict(), args.save)
""", "").replace("""        if hvd.broadcast_object(stop""", """        if acc > 0.5:
            torch.save(model.state_dict(), args.save)
        if hvd.broadcast_object(stop""")
    crash, flagged, _ = check_project(tmp_path, {"main.py": broken, "ranker/__init__.py": "",
                                                 "ranker/utils.py": UTILS}, script="main.py")
    assert flagged == {7: "wrong"}
