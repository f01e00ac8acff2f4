"""Step 2 reads the project's modules for GPU use: a device chosen in a helper (`get_device()` returning
`torch.device("cuda" if torch.cuda.is_available() else "cpu")`) puts every rank of a node on GPU 0 unless
the script pins one by local rank, so "uses no GPU" is wrong for it (blind set za, dlrm-lite). A project
with no word of GPU anywhere still trains on the CPU, with nothing to pin.

Written from scratch for these tests: a recommender project, `train.py` and `reco/`."""
from crash_scripts import Source, check_project
from hvdkit.check import MISSING, OK

TRAIN = Source('''
    """Two-tower recommender.  horovodrun -np 8 python train.py"""
    import torch
    import horovod.torch as hvd

    from reco.utils import get_device

    hvd.init()
    PIN
    device = get_device()
    users, items = torch.randint(0, 1000, (8192,)), torch.randint(0, 5000, (8192,))
    clicks = torch.rand(8192)
    data = torch.utils.data.TensorDataset(users, items, clicks)
    sampler = torch.utils.data.distributed.DistributedSampler(data, num_replicas=hvd.size(), rank=hvd.rank())
    loader = torch.utils.data.DataLoader(data, batch_size=256, sampler=sampler)
    user_emb, item_emb = torch.nn.Embedding(1000, 32).to(device), torch.nn.Embedding(5000, 32).to(device)
    params = list(user_emb.parameters()) + list(item_emb.parameters())
    named = list(user_emb.named_parameters(prefix="user")) + list(item_emb.named_parameters(prefix="item"))
    opt = hvd.DistributedOptimizer(torch.optim.Adam(params, lr=1e-3 * hvd.size()), named_parameters=named)
    hvd.broadcast_parameters(dict(named), root_rank=0)
    hvd.broadcast_optimizer_state(opt, root_rank=0)
    for epoch in range(3):
        sampler.set_epoch(epoch)
        total = torch.zeros((), device=device)
        for u, i, c in loader:
            u, i, c = u.to(device), i.to(device), c.to(device)
            opt.zero_grad()
            loss = torch.nn.functional.mse_loss((user_emb(u) * item_emb(i)).sum(1), c)
            loss.backward()
            opt.step()
            total += loss.detach()
        mean = hvd.allreduce(total / len(loader))
        if hvd.rank() == 0:
            print(epoch, mean.item())
            torch.save({"user": user_emb.state_dict(), "item": item_emb.state_dict()}, "towers.pt")
''')

UTILS = '''
    import torch


    def get_device():
        return torch.device(DEVICE)
'''


def check(tmp_path, pin="pass", device='"cuda" if torch.cuda.is_available() else "cpu"'):
    files = {"train.py": TRAIN.replace("PIN", pin), "reco/__init__.py": "",
             "reco/utils.py": UTILS.replace("DEVICE", device)}
    return check_project(tmp_path, files)[2][2]


def test_a_cuda_device_chosen_in_a_module_needs_pinning(tmp_path):
    f2 = check(tmp_path)
    assert f2.verdict == MISSING, f2


def test_pinned_by_local_rank_it_is_ok(tmp_path):
    f2 = check(tmp_path, pin="torch.cuda.set_device(hvd.local_rank())")
    assert f2.verdict == OK, f2


def test_a_cpu_project_has_nothing_to_pin(tmp_path):
    f2 = check(tmp_path, pin="pass", device='"cpu"')
    assert f2.verdict == OK, f2
