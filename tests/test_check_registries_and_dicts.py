"""What a project keeps in dicts, and libraries that do no Horovod step (issue 39, classes 1 and 3).

- A registry filled by a decorator and read into a name first (`factory = OPTIMIZERS[cfg.name]`, then
  `factory(params, cfg)`): each registered factory may run, so an LR none of them scales is not scaled (it
  was "no optimizer construction found").
- Models kept in a dict (`models["encoder"]`, `models["depth"]`) and trained by a loop over it: a broadcast of
  some entries by their keys leaves the others starting from different weights.
- `yaml.safe_load(fh)` cannot init Horovod: workers that horovod.run starts and that never call hvd.init() are
  missing it (it was "cannot tell", naming the YAML call).

Written from scratch for these tests."""
from crash_scripts import Source, check, check_project

REGISTRY = Source('''
    import horovod.torch as hvd
    import torch

    OPTIMIZERS = {}


    def register(name):
        def wrap(fn):
            OPTIMIZERS[name] = fn
            return fn
        return wrap


    @register("sgd")
    def sgd(params, cfg):
        return torch.optim.SGD(params, lr=#LR#, momentum=0.9)


    @register("adamw")
    def adamw(params, cfg):
        return torch.optim.AdamW(params, lr=#LR#, weight_decay=0.05)


    def build_optimizer(cfg, params):
        try:
            factory = OPTIMIZERS[cfg["name"]]
        except KeyError:
            raise ValueError(f"unknown optimizer {cfg['name']!r}")
        return factory(params, cfg)
''')

REGISTRY_TRAIN = '''
    """Classifier: horovodrun -np 4 python train.py"""
    import horovod.torch as hvd
    import torch
    from torch.utils.data import DataLoader, TensorDataset
    from torch.utils.data.distributed import DistributedSampler

    from zoo.registry import build_optimizer


    def main():
        hvd.init()
        torch.set_num_threads(1)
        data = TensorDataset(torch.randn(2048, 20), torch.randint(0, 4, (2048,)))
        sampler = DistributedSampler(data, num_replicas=hvd.size(), rank=hvd.rank())
        loader = DataLoader(data, batch_size=64, sampler=sampler)
        model = torch.nn.Linear(20, 4)
        opt = build_optimizer({"name": "sgd", "lr": 0.05}, model.parameters())
        opt = hvd.DistributedOptimizer(opt, named_parameters=model.named_parameters())
        hvd.broadcast_parameters(model.state_dict(), root_rank=0)
        hvd.broadcast_optimizer_state(opt, root_rank=0)
        for epoch in range(5):
            sampler.set_epoch(epoch)
            for x, y in loader:
                opt.zero_grad()
                torch.nn.functional.cross_entropy(model(x), y).backward()
                opt.step()
        if hvd.rank() == 0:
            torch.save(model.state_dict(), "model.pt")


    if __name__ == "__main__":
        main()
'''


def registry_project(lr):
    return {"zoo/__init__.py": "", "zoo/registry.py": str.replace(REGISTRY, "#LR#", lr),
            "train.py": REGISTRY_TRAIN}


def test_factories_a_registry_name_holds_are_read_and_none_scales_the_lr(tmp_path):
    crash, flagged, findings = check_project(tmp_path, registry_project('cfg["lr"]'))
    assert crash is None and flagged == {4: "missing"}, findings[4].evidence
    assert findings[4].file == "zoo/registry.py"


def test_factories_that_scale_the_lr_are_scaled(tmp_path):
    crash, flagged, findings = check_project(tmp_path, registry_project('cfg["lr"] * hvd.size()'))
    assert crash is None and 4 not in flagged, findings[4].evidence


DICT_OF_MODELS = Source('''
    """Monocular depth: horovodrun -np 4 python train.py"""
    import horovod.torch as hvd
    import torch
    from torch import nn

    hvd.init()
    torch.manual_seed(hvd.rank())
    images = torch.randn(512, 3, 16, 16)
    images = images[hvd.rank()::hvd.size()]
    models = {}
    models["encoder"] = nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.ReLU())
    models["depth"] = nn.Sequential(nn.Conv2d(8, 1, 3, padding=1), nn.Sigmoid())
    params = []
    for k in models:
        params += list(models[k].parameters())
    named = [(k + "." + n, p) for k in models for n, p in models[k].named_parameters()]
    opt = torch.optim.Adam(params, lr=1e-4 * hvd.size())
    #BROADCAST#
    hvd.broadcast_optimizer_state(opt, root_rank=0)
    opt = hvd.DistributedOptimizer(opt, named_parameters=named)
    for epoch in range(3):
        for i in range(0, len(images), 16):
            batch = images[i:i + 16]
            opt.zero_grad()
            disp = models["depth"](models["encoder"](batch))
            loss = (disp - batch.mean(1, keepdim=True)).abs().mean()
            loss.backward()
            opt.step()
        avg = hvd.allreduce(loss.detach(), name="loss")
        if hvd.rank() == 0:
            print(epoch, avg.item())
            torch.save({k: m.state_dict() for k, m in models.items()}, "depth.pt")
''')


def test_a_dict_entry_left_out_of_the_broadcasts_starts_from_its_own_weights(tmp_path):
    crash, flagged = check(tmp_path, DICT_OF_MODELS.replace(
        "#BROADCAST#", 'hvd.broadcast_parameters(models["encoder"].state_dict(), root_rank=0)'))
    assert crash is None and flagged == {6: "wrong"}


def test_every_dict_entry_broadcast_in_a_loop_is_broadcast(tmp_path):
    crash, flagged = check(tmp_path, DICT_OF_MODELS.replace(
        "#BROADCAST#", "for k in models:\n        hvd.broadcast_parameters(models[k].state_dict(), root_rank=0)"))
    assert crash is None and flagged == {}


WORKER = Source('''
    import horovod.torch as hvd
    import torch
    import yaml


    def load_config(path):
        with open(path) as fh:
            return yaml.safe_load(fh)


    def train(config_path):
        cfg = load_config(config_path)
        #INIT#
        torch.set_num_threads(1)
        x = torch.randn(1024, 8)[hvd.rank()::hvd.size()]
        model = torch.nn.Linear(8, 1)
        opt = torch.optim.SGD(model.parameters(), lr=cfg["lr"] * hvd.size())
        opt = hvd.DistributedOptimizer(opt, named_parameters=model.named_parameters())
        hvd.broadcast_parameters(model.state_dict(), root_rank=0)
        for step in range(100):
            opt.zero_grad()
            model(x).pow(2).mean().backward()
            opt.step()
        if hvd.rank() == 0:
            torch.save(model.state_dict(), "model.pt")
''')

LAUNCH = '''
    """Launcher: python launch.py (starts 4 workers itself)."""
    import horovod

    from job.worker import train

    if __name__ == "__main__":
        horovod.run(train, args=("config.yaml",), np=4, use_gloo=True)
'''


def test_workers_a_yaml_reader_runs_before_are_missing_init(tmp_path):
    files = {"job/__init__.py": "", "job/worker.py": WORKER.replace("#INIT#", ""), "launch.py": LAUNCH}
    crash, flagged, findings = check_project(tmp_path, files, "launch.py")
    assert flagged.get(1) == "missing", findings[1].evidence
    assert crash is not None and "not been initialized" in crash["error"]


def test_workers_that_init_after_reading_yaml_are_initialised(tmp_path):
    files = {"job/__init__.py": "", "job/worker.py": WORKER.replace("#INIT#", "hvd.init()"), "launch.py": LAUNCH}
    crash, flagged, _ = check_project(tmp_path, files, "launch.py")
    assert crash is None and 1 not in flagged
