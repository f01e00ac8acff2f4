"""Crash finding: a GAN critic's two backward() passes before its step, `err_real.backward()` then
`err_fake.backward()` (on `netD(fake.detach())`), then `optimizerD.step()`, under a torch DistributedOptimizer
left at backward_passes_per_step=1: Horovod's gradient hook raises AssertionError at the second pass on 2
ranks (tried on this machine: "Gradients were computed more than backward_passes_per_step times before call
to step()"). One backward of the summed losses is fine; so is the generator's own backward after the critic
saw `fake.detach()`, which sends no gradient into the generator.

Written from scratch for these tests: a flat DCGAN-style script."""
import textwrap

from hvdkit.check.static import analyze

SCRIPT = '''
    """Texture GAN.  horovodrun -np 4 python train_gan.py"""
    import torch
    import torch.nn as nn
    import horovod.torch as hvd

    hvd.init()
    torch.set_num_threads(1)
    data = torch.randn(8192, 16)[hvd.rank()::hvd.size()]
    netG = nn.Sequential(nn.Linear(8, 32), nn.ReLU(), nn.Linear(32, 16))
    netD = nn.Sequential(nn.Linear(16, 32), nn.LeakyReLU(0.2), nn.Linear(32, 1))
    criterion = nn.BCEWithLogitsLoss()
    optD = hvd.DistributedOptimizer(torch.optim.Adam(netD.parameters(), lr=2e-4 * hvd.size()),
                                    named_parameters=netD.named_parameters(prefix="D"))
    optG = hvd.DistributedOptimizer(torch.optim.Adam(netG.parameters(), lr=2e-4 * hvd.size()),
                                    named_parameters=netG.named_parameters(prefix="G"))
    hvd.broadcast_parameters(netG.state_dict(), root_rank=0)
    hvd.broadcast_parameters(netD.state_dict(), root_rank=0)
    for epoch in range(5):
        for s in range(0, len(data), 64):
            real = data[s:s + 64]
            ones, zeros = torch.ones(len(real), 1), torch.zeros(len(real), 1)
            optD.zero_grad()
            err_real = criterion(netD(real), ones)
            fake = netG(torch.randn(len(real), 8))
            err_fake = criterion(netD(fake.detach()), zeros)
            {critic}
            optD.step()
            for p in netD.parameters():
                p.requires_grad_(False)
            optG.zero_grad()
            err_g = criterion(netD(fake), ones)
            err_g.backward()
            optG.step()
            for p in netD.parameters():
                p.requires_grad_(True)
        if hvd.rank() == 0:
            torch.save({"G": netG.state_dict(), "D": netD.state_dict()}, "gan.pt")
'''


def crash(tmp_path, critic):
    path = tmp_path / "train_gan.py"
    path.write_text(textwrap.dedent(SCRIPT.replace("{critic}", critic)).lstrip("\n"))
    return analyze(str(path))[2]["crash"], path


def test_two_critic_backwards_before_its_step_crash_at_the_second(tmp_path):
    found, path = crash(tmp_path, "err_real.backward(); err_fake.backward()")
    line = next(i for i, ln in enumerate(path.read_text().splitlines(), 1) if "err_fake.backward()" in ln)
    assert found and found["line"] == line and found["error"].startswith("AssertionError"), found
    assert "netD" in found["why"], found


def test_one_backward_of_the_summed_losses_is_fine(tmp_path):
    found, _ = crash(tmp_path, "(err_real + err_fake).backward()")
    assert found is None, found
