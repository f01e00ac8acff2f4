"""Two models made by two calls of one factory are two models; a device chosen by the local rank picks no data.

A teacher and then a student come from `build_model(...)`, whose code makes both at one line. The teacher
is broadcast from rank 0; the student, trained after it, is not: its replicas start apart (step 6). The
pseudo-labels the teacher predicts on the device `torch.device("cuda", hvd.local_rank())` are the same values
on every rank: a mask kept from them is no part picked by the local rank (step 3). Written from scratch for
these tests: a pseudo-labelling project whose model factory and training loop live in a package module."""
import ast
import textwrap

from hvdkit.check import FLAGGED, OK
from hvdkit.check.facts import Facts
from hvdkit.check.rules import step3_shard
from hvdkit.check.static import load

from crash_scripts import check_project

ENTRY = '''
    """Teacher, pseudo-labels, student.  horovodrun -np 4 python pseudo.py"""
    import torch
    import horovod.torch as hvd
    from torch.utils.data import DataLoader, TensorDataset
    from torch.utils.data.distributed import DistributedSampler

    from plkit.models import build_model
    from plkit.loop import make_optimizer, fit, predict, with_pseudo


    def loader(ds):
        sampler = DistributedSampler(ds, num_replicas=hvd.size(), rank=hvd.rank(), shuffle=True)
        return DataLoader(ds, batch_size=64, sampler=sampler), sampler


    def main():
        hvd.init()
        torch.set_num_threads(1)
        device = torch.device("cuda", hvd.local_rank()) if torch.cuda.is_available() else torch.device("cpu")
        g = torch.Generator().manual_seed(0)
        x, y = torch.randn(4096, 20, generator=g), torch.randint(0, 3, (4096,), generator=g)
        unlabelled = torch.randn(2048, 20, generator=g)

        teacher = build_model(20, 3).to(device)
        t_opt = make_optimizer(teacher)
        hvd.broadcast_parameters(teacher.state_dict(), root_rank=0)
        hvd.broadcast_optimizer_state(t_opt, root_rank=0)
        fit(teacher, t_opt, *loader(TensorDataset(x, y)), device)

        probs = predict(teacher, unlabelled, device)
        keep = probs.max(1).values >= 0.9
        mixed = with_pseudo(TensorDataset(x, y), unlabelled[keep], probs.argmax(1)[keep])

        student = build_model(20, 3).to(device)
        s_opt = make_optimizer(student)
        {student_sync}
        fit(student, s_opt, *loader(mixed), device)
        if hvd.rank() == 0:
            torch.save(student.state_dict(), "student.pt")


    if __name__ == "__main__":
        main()
'''

MODELS = '''
    import torch


    def build_model(n_in, n_out):
        return torch.nn.Sequential(torch.nn.Linear(n_in, 64), torch.nn.ReLU(), torch.nn.Linear(64, n_out))
'''

LOOP = '''
    import torch
    import torch.nn.functional as F
    import horovod.torch as hvd
    from torch.utils.data import ConcatDataset, TensorDataset


    def make_optimizer(model, lr=0.01):
        opt = torch.optim.SGD(model.parameters(), lr=lr * hvd.size(), momentum=0.9)
        return hvd.DistributedOptimizer(opt, named_parameters=model.named_parameters())


    def with_pseudo(labelled, x, y):
        return ConcatDataset([labelled, TensorDataset(x, y)])


    @torch.no_grad()
    def predict(model, x, device):
        """Each rank scores every size-th row; the rows are gathered back in order on every rank."""
        mine = list(range(hvd.rank(), len(x), hvd.size()))
        probs = torch.softmax(model(x[mine].to(device)), 1).cpu()
        out = torch.zeros(len(x), probs.shape[1])
        for idx, p in hvd.allgather_object((mine, probs)):
            out[idx] = p
        return out


    def fit(model, opt, loader, sampler, device, epochs=2):
        for epoch in range(epochs):
            sampler.set_epoch(epoch)
            for xb, yb in loader:
                opt.zero_grad()
                F.cross_entropy(model(xb.to(device)), yb.to(device)).backward()
                opt.step()
'''

SYNC = "hvd.broadcast_parameters(student.state_dict(), root_rank=0)"


def findings(tmp_path, student_sync):
    files = {"pseudo.py": ENTRY.replace("{student_sync}", student_sync), "plkit/__init__.py": "",
             "plkit/models.py": MODELS, "plkit/loop.py": LOOP}
    return check_project(tmp_path, files, script="pseudo.py")[2]


def test_a_student_from_the_teachers_factory_never_broadcast_is_flagged(tmp_path):
    f = findings(tmp_path, "pass")[6]
    assert f.verdict in FLAGGED and "student" in f.evidence, f


def test_the_student_broadcast_too_is_ok(tmp_path):
    assert findings(tmp_path, SYNC)[6].verdict == OK


def test_a_value_computed_on_the_local_ranks_device_is_not_picked_by_the_local_rank(tmp_path):
    """Step 3's query for parts picked by the local rank: the teacher's pseudo-label mask is computed on the
    device chosen by the local rank, not from the local rank; an index that reads it is."""
    path = tmp_path / "mask.py"
    path.write_text(textwrap.dedent('''
        import torch
        import horovod.torch as hvd

        hvd.init()
        device = torch.device("cuda", hvd.local_rank())
        model = torch.nn.Linear(8, 2).to(device)
        x = torch.randn(100, 8)
        keep = model(x.to(device)).argmax(1) == 1
        mine = torch.arange(100) % hvd.local_size() == hvd.local_rank()
    '''))
    f = Facts(load(str(path)))
    value = {n.targets[0].id: n.value for n in ast.walk(f.s.tree) if isinstance(n, ast.Assign)}
    assert not step3_shard._by_local_rank(f, value["keep"])
    assert step3_shard._by_local_rank(f, value["mine"])
