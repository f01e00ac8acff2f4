"""What one call of a project's factory makes, and what an option's declared default leaves running (issue 39,
classes 1 and 4: the work is in the project's modules; verdicts by what the code computes).

- A loader factory called for training and again for validation builds a DistributedSampler each time, and for
  training hands the loader `shuffle=True` without it: the training call's sampler goes unused, every rank
  reads the whole training set (the validation call's sampler, used, is no evidence for training).
- A checkpoint helper returns early on ranks other than 0 only with `--save-rank0-only`, off by default: by
  default every rank writes. The same helper with the test reversed (`--all-ranks-save` off) is right.
- A second optimizer (a GAN's discriminator) wrapped only under an option that is off by default steps with
  this rank's own gradients by default.
- Optimizers unpacked from a builder of a module that is not there (`opt_g, opt_d = build_optimizers(...)`),
  and a model sync helper of that module beside a broadcast of the optimizer state: cannot tell, not
  "never averaged" and "only the optimizer state is broadcast".
- A Trainer of an absent module, made from the model, whose `save()` is called on every rank: the Trainer's
  own code may write on rank 0 only (cannot tell); with the module present and writing on every rank: wrong.

Written from scratch for these tests."""
from crash_scripts import Source, check_project

DATA = Source('''
    import torch
    import horovod.torch as hvd
    from torch.utils.data import DataLoader, TensorDataset
    from torch.utils.data.distributed import DistributedSampler


    def load_table(n_rows, n_feat, seed=0):
        g = torch.Generator().manual_seed(seed)
        return torch.randn(n_rows, n_feat, generator=g), torch.randint(0, 2, (n_rows,), generator=g)


    def make_loader(x, y, batch_size, train):
        ds = TensorDataset(x, y)
        sampler = DistributedSampler(ds, num_replicas=hvd.size(), rank=hvd.rank(), shuffle=train)
        if train:
            loader = DataLoader(ds, batch_size=batch_size, shuffle=True, drop_last=True)
        else:
            loader = DataLoader(ds, batch_size=batch_size, sampler=sampler)
        return loader, sampler
''')

TABLE_TRAIN = Source('''
    """horovodrun -np 4 python train.py --epochs 3"""
    import argparse

    import torch
    import horovod.torch as hvd

    from tabkit.data import load_table, make_loader
    from tabkit.ckpt import save

    p = argparse.ArgumentParser()
    p.add_argument("--epochs", type=int, default=3)
    p.add_argument("--batch-size", type=int, default=64)
    p.add_argument("--lr", type=float, default=0.01)
    p.add_argument("--out", default="ckpt.pt")
    #OPTION#
    args = p.parse_args()

    hvd.init()
    torch.manual_seed(0)
    x, y = load_table(4096, 16)
    xv, yv = load_table(512, 16, seed=1)
    train_loader, train_sampler = make_loader(x, y, args.batch_size, train=True)
    val_loader, _ = make_loader(xv, yv, 256, train=False)

    model = torch.nn.Sequential(torch.nn.Linear(16, 32), torch.nn.ReLU(), torch.nn.Linear(32, 2))
    opt = torch.optim.SGD(model.parameters(), lr=args.lr * hvd.size(), momentum=0.9)
    opt = hvd.DistributedOptimizer(opt, named_parameters=model.named_parameters())
    hvd.broadcast_parameters(model.state_dict(), root_rank=0)
    hvd.broadcast_optimizer_state(opt, root_rank=0)

    for epoch in range(args.epochs):
        train_sampler.set_epoch(epoch)
        model.train()
        for xb, yb in train_loader:
            opt.zero_grad()
            torch.nn.functional.cross_entropy(model(xb), yb).backward()
            opt.step()
        model.eval()
        hits = torch.zeros(2)
        with torch.no_grad():
            for xb, yb in val_loader:
                hits += torch.tensor([float((model(xb).argmax(1) == yb).sum()), float(len(yb))])
        hits = hvd.allreduce(hits, op=hvd.Sum, name="val_hits")
        if hvd.rank() == 0:
            print(epoch, float(hits[0] / hits[1]))
        save(model, opt, epoch, args)
''')

CKPT_RANK0_FLAG = '''
    import os

    import torch
    import horovod.torch as hvd


    def save(model, optimizer, epoch, args):
        if args.save_rank0_only and hvd.rank() != 0:
            return
        torch.save({"epoch": epoch, "model": model.state_dict(), "optimizer": optimizer.state_dict()}, args.out)
'''

CKPT_ALL_RANKS_FLAG = CKPT_RANK0_FLAG.replace("args.save_rank0_only", "not args.all_ranks_save")


def _table(tmp_path, data=DATA, ckpt=CKPT_ALL_RANKS_FLAG,
           option='p.add_argument("--all-ranks-save", action="store_true")'):
    files = {"train.py": TABLE_TRAIN.replace("#OPTION#", option), "tabkit/__init__.py": "",
             "tabkit/data.py": data, "tabkit/ckpt.py": ckpt}
    return check_project(tmp_path, files)


def test_a_factorys_training_call_that_drops_its_sampler_leaves_every_rank_the_whole_set(tmp_path):
    crash, flagged, findings = _table(tmp_path)
    assert crash is None and flagged == {3: "wrong"}, (flagged, findings[3])
    assert "line 14 of tabkit/data.py" in findings[3].evidence and "not used" in findings[3].evidence


def test_a_factory_that_gives_both_loaders_their_sampler_shards_the_training(tmp_path):
    data = DATA.replace("loader = DataLoader(ds, batch_size=batch_size, shuffle=True, drop_last=True)",
                        "loader = DataLoader(ds, batch_size=batch_size, sampler=sampler, drop_last=True)")
    crash, flagged, findings = _table(tmp_path, data=data)
    assert crash is None and flagged == {}, flagged
    assert "disjoint" in findings[3].evidence


def test_a_rank_0_guard_behind_an_option_off_by_default_lets_every_rank_write(tmp_path):
    data = DATA.replace("shuffle=True, drop_last=True)", "sampler=sampler, drop_last=True)")
    crash, flagged, findings = _table(tmp_path, data=data, ckpt=CKPT_RANK0_FLAG,
                                      option='p.add_argument("--save-rank0-only", action="store_true")')
    assert crash is None and flagged == {7: "wrong"}, flagged
    assert "every rank writes" in findings[7].evidence and "--save-rank0-only" in findings[7].evidence


def test_the_same_guard_that_holds_by_default_writes_on_rank_0(tmp_path):
    data = DATA.replace("shuffle=True, drop_last=True)", "sampler=sampler, drop_last=True)")
    crash, flagged, findings = _table(tmp_path, data=data)
    assert crash is None and flagged == {}, flagged
    assert "rank 0 writes" in findings[7].evidence


GAN = Source('''
    """horovodrun -np 2 python gan.py"""
    import argparse

    import torch
    import horovod.torch as hvd

    p = argparse.ArgumentParser()
    p.add_argument("--iters", type=int, default=200)
    p.add_argument("--sync-d", action="store_true", help="average the critic's gradients too")
    args = p.parse_args()

    hvd.init()
    torch.manual_seed(1234)
    G = torch.nn.Sequential(torch.nn.Linear(8, 32), torch.nn.ReLU(), torch.nn.Linear(32, 2))
    D = torch.nn.Sequential(torch.nn.Linear(2, 32), torch.nn.ReLU(), torch.nn.Linear(32, 1))
    opt_g = torch.optim.Adam(G.parameters(), lr=1e-4 * hvd.size(), betas=(0.5, 0.9))
    opt_d = torch.optim.Adam(D.parameters(), lr=4e-4 * hvd.size(), betas=(0.5, 0.9))
    opt_g = hvd.DistributedOptimizer(opt_g, named_parameters=G.named_parameters())
    if args.sync_d:
        opt_d = hvd.DistributedOptimizer(opt_d, named_parameters=D.named_parameters())
    for net in (G, D):
        hvd.broadcast_parameters(net.state_dict(), root_rank=0)
    g = torch.Generator().manual_seed(hvd.rank())
    real_all = torch.randn(8192, 2, generator=g) * 0.5 + 1.0
    for it in range(args.iters):
        real = real_all[torch.randint(0, len(real_all), (64,), generator=g)]
        with torch.no_grad():
            fake = G(torch.randn(64, 8, generator=g))
        loss_d = torch.nn.functional.softplus(D(fake)).mean() + torch.nn.functional.softplus(-D(real)).mean()
        opt_d.zero_grad()
        loss_d.backward()
        opt_d.step()
        loss_g = torch.nn.functional.softplus(-D(G(torch.randn(64, 8, generator=g)))).mean()
        opt_g.zero_grad()
        loss_g.backward()
        opt_g.step()
        if it % 50 == 0:
            losses = hvd.allreduce(torch.stack([loss_d.detach(), loss_g.detach()]), name="losses")
            if hvd.rank() == 0:
                print(it, losses.tolist())
                torch.save({"G": G.state_dict(), "D": D.state_dict()}, "gan.pt")
''')


def test_a_critics_optimizer_wrapped_only_with_an_option_off_by_default_is_each_ranks_own(tmp_path):
    crash, flagged, findings = check_project(tmp_path, {"gan.py": GAN}, script="gan.py")
    assert crash is None and flagged == {5: "wrong"}, flagged
    assert "not wrapped" in findings[5].evidence and findings[5].line == 17


def test_a_critics_optimizer_wrapped_on_every_run_is_averaged(tmp_path):
    gan = GAN.replace("    if args.sync_d:\n        opt_d = hvd", "    opt_d = hvd")
    crash, flagged, _ = check_project(tmp_path, {"gan.py": gan}, script="gan.py")
    assert crash is None and flagged == {}, flagged


STUDIO = Source('''
    """horovodrun -np 4 python train.py"""
    import torch
    import horovod.torch as hvd

    from studio.config import from_cli
    from studio.nets import Generator, Discriminator
    from studio.optim import build_optimizers
    from studio.sync import sync_models

    cfg = from_cli()
    hvd.init()
    G, D = Generator(cfg), Discriminator(cfg)
    opt_g, opt_d = build_optimizers(cfg, G, D)
    sync_models(G, D)
    hvd.broadcast_optimizer_state(opt_g, 0)
    hvd.broadcast_optimizer_state(opt_d, 0)
    data = torch.randn(4096, cfg.dim)[hvd.rank()::hvd.size()]
    for step in range(cfg.steps):
        real = data[torch.randint(0, len(data), (cfg.batch,))]
        fake = G(torch.randn(cfg.batch, cfg.z_dim)).detach()
        loss_d = D(fake).mean() - D(real).mean()
        opt_d.zero_grad()
        loss_d.backward()
        opt_d.step()
        loss_g = -D(G(torch.randn(cfg.batch, cfg.z_dim))).mean()
        opt_g.zero_grad()
        loss_g.backward()
        opt_g.step()
    if hvd.rank() == 0:
        torch.save({"G": G.state_dict(), "D": D.state_dict()}, cfg.out)
''')

STUDIO_OPTIM_PLAIN = '''
    import torch


    def build_optimizers(cfg, G, D):
        return torch.optim.Adam(G.parameters(), lr=cfg.lr), torch.optim.Adam(D.parameters(), lr=cfg.lr)
'''

STUDIO_SYNC = '''
    import horovod.torch as hvd


    def sync_models(*nets):
        for net in nets:
            hvd.broadcast_parameters(net.state_dict(), root_rank=0)
'''


def test_optimizers_and_a_model_sync_from_a_module_not_there_cannot_be_told(tmp_path):
    crash, flagged, findings = check_project(tmp_path, {"train.py": STUDIO})
    assert crash is None and 5 not in flagged and 6 not in flagged, flagged
    assert findings[5].verdict == findings[6].verdict == "cannot tell", (findings[5], findings[6])
    assert "build_optimizers(...)" in findings[5].evidence and "sync_models(...)" in findings[6].evidence


def test_the_same_builder_read_and_returning_plain_optimizers_averages_nothing(tmp_path):
    files = {"train.py": STUDIO, "studio/__init__.py": "", "studio/optim.py": STUDIO_OPTIM_PLAIN,
             "studio/sync.py": STUDIO_SYNC}
    crash, flagged, findings = check_project(tmp_path, files)
    assert flagged.get(5) == "missing" and 6 not in flagged, (flagged, findings[5], findings[6])


RUNNER = Source('''
    """python launch.py --np 4: horovod.run starts train_fn on each rank"""
    import horovod
    import horovod.torch as hvd
    import torch

    from pipe.trainer import Trainer


    def train_fn(epochs, out):
        hvd.init()
        data = torch.randn(2048, 8)[hvd.rank()::hvd.size()]
        model = torch.nn.Linear(8, 1)
        opt = torch.optim.SGD(model.parameters(), lr=0.01 * hvd.size())
        opt = hvd.DistributedOptimizer(opt, named_parameters=model.named_parameters())
        hvd.broadcast_parameters(model.state_dict(), root_rank=0)
        trainer = Trainer(model, opt)
        trainer.fit(data, epochs)
        trainer.save(out)


    if __name__ == "__main__":
        horovod.run(train_fn, args=(3, "model.pt"), np=4)
''')

RUNNER_TRAINER = '''
    import torch


    class Trainer:
        def __init__(self, model, optimizer):
            self.model, self.optimizer = model, optimizer

        def fit(self, data, epochs):
            for _ in range(epochs):
                for x in data.split(64):
                    self.optimizer.zero_grad()
                    self.model(x).pow(2).mean().backward()
                    self.optimizer.step()

        def save(self, path):
            torch.save(self.model.state_dict(), path)
'''


def test_a_save_of_a_trainer_made_from_the_model_by_code_not_read_cannot_be_told(tmp_path):
    crash, flagged, findings = check_project(tmp_path, {"launch.py": RUNNER}, script="launch.py")
    assert 7 not in flagged and findings[7].verdict == "cannot tell", findings[7]
    assert "trainer.save(...)" in findings[7].evidence


def test_the_same_trainer_read_writes_on_every_rank(tmp_path):
    files = {"launch.py": RUNNER, "pipe/__init__.py": "", "pipe/trainer.py": RUNNER_TRAINER}
    crash, flagged, findings = check_project(tmp_path, files, script="launch.py")
    assert flagged.get(7) == "wrong" and "every rank writes" in findings[7].evidence, findings[7]
