"""Step 7: a collective run while rank 0 alone computes what its checkpoint holds hangs the job.

The save helper averages the EMA weights over the ranks (`hvd.allreduce`) inside the `torch.save(...)` it
makes, and the trainer calls it under `if hvd.rank() == 0:`: the other ranks never join the allreduce.
That is the checkpoint's fault, not a metric averaged on some ranks (step 8). Averaging the EMA on every
rank before the guard, and handing the result to the save, is right. Written from scratch for these tests:
a small denoising project whose checkpoint helpers live in a package module."""
from hvdkit.check import FLAGGED, OK

from crash_scripts import check_project

ENTRY = '''
    """Denoiser with EMA weights.  horovodrun -np 4 python train.py --steps 2000"""
    import argparse
    import copy

    import torch
    import horovod.torch as hvd

    from denoise.ckpt import save_state, averaged_ema


    def main():
        ap = argparse.ArgumentParser()
        ap.add_argument("--steps", type=int, default=2000)
        ap.add_argument("--every", type=int, default=500)
        ap.add_argument("--lr", type=float, default=2e-4)
        args = ap.parse_args()
        hvd.init()
        torch.set_num_threads(1)
        torch.manual_seed(1234 + hvd.rank())
        model = torch.nn.Sequential(torch.nn.Linear(32, 128), torch.nn.SiLU(), torch.nn.Linear(128, 32))
        ema = copy.deepcopy(model)
        opt = torch.optim.Adam(model.parameters(), lr=args.lr * hvd.size())
        opt = hvd.DistributedOptimizer(opt, named_parameters=model.named_parameters())
        hvd.broadcast_parameters(model.state_dict(), root_rank=0)
        hvd.broadcast_parameters(ema.state_dict(), root_rank=0)
        hvd.broadcast_optimizer_state(opt, root_rank=0)
        for step in range(1, args.steps + 1):
            x = torch.randn(64, 32)
            noise = torch.randn_like(x)
            loss = torch.nn.functional.mse_loss(model(x + noise), noise)
            opt.zero_grad()
            loss.backward()
            opt.step()
            with torch.no_grad():
                for pe, pm in zip(ema.parameters(), model.parameters()):
                    pe.mul_(0.999).add_(pm, alpha=0.001)
            if step % args.every == 0:
                {save}


    if __name__ == "__main__":
        main()
'''

CKPT = '''
    import torch
    import horovod.torch as hvd


    @torch.no_grad()
    def averaged_ema(ema):
        return {k: hvd.allreduce(v, name=f"ema.{k}") for k, v in ema.state_dict().items()}


    def save_state(path, model, ema_state, step):
        if ema_state is None:
            raise ValueError("no EMA state")
        torch.save({"model": model.state_dict(), "ema": ema_state, "step": step}, path)


    def save_with_ema(path, model, ema, step):
        torch.save({"model": model.state_dict(), "ema": averaged_ema(ema), "step": step}, path)
'''

INSIDE = ('if hvd.rank() == 0:\n'
          '                    from denoise.ckpt import save_with_ema\n'
          '                    save_with_ema("denoise.pt", model, ema, step)')
BEFORE = ('state = averaged_ema(ema)\n'
          '                if hvd.rank() == 0:\n'
          '                    save_state("denoise.pt", model, state, step)')


def findings(tmp_path, save):
    files = {"train.py": ENTRY.replace("{save}", save), "denoise/__init__.py": "", "denoise/ckpt.py": CKPT}
    return check_project(tmp_path, files)[2]


def test_an_allreduce_inside_the_rank_0_save_hangs_and_is_the_checkpoints(tmp_path):
    got = findings(tmp_path, INSIDE)
    assert got[7].verdict in FLAGGED and "hangs" in got[7].evidence, got[7]
    assert got[8].verdict not in FLAGGED, got[8]


def test_the_ema_averaged_on_every_rank_before_the_guard_is_right(tmp_path):
    got = findings(tmp_path, BEFORE)
    assert got[7].verdict == OK, got[7]
