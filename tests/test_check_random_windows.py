"""Step 3 for a language model trained on random windows of a token stream (nanoGPT's `get_batch`): each
rank takes a contiguous 1/size slice of the stream and draws its batch positions inside its own slice
(`np.random.randint(0, len(tokens) - ctx - 1, size=batch)` on that slice): disjoint parts, ok. Drawn from
the whole stream on every rank, the ranks' draws are no partition: wrong.

Written from scratch for these tests."""
import textwrap

from crash_scripts import Source, check

LM = Source(textwrap.dedent("""
    import numpy as np
    import torch
    import horovod.torch as hvd

    hvd.init()
    torch.set_num_threads(1)
    stream = np.arange(200000) % 5000
    span = len(stream) // hvd.size()
    OWN
    ctx, global_batch = 64, 64
    batch = global_batch // hvd.size()


    def get_batch(tokens):
        ix = np.random.randint(0, len(tokens) - ctx - 1, size=batch)
        x = torch.stack([torch.from_numpy(tokens[i:i + ctx].astype(np.int64)) for i in ix])
        y = torch.stack([torch.from_numpy(tokens[i + 1:i + 1 + ctx].astype(np.int64)) for i in ix])
        return x, y


    model = torch.nn.Sequential(torch.nn.Embedding(5000, 64), torch.nn.Linear(64, 5000))
    opt = hvd.DistributedOptimizer(torch.optim.AdamW(model.parameters(), lr=3e-4 * hvd.size()),
                                   named_parameters=model.named_parameters())
    hvd.broadcast_parameters(model.state_dict(), root_rank=0)
    hvd.broadcast_optimizer_state(opt, root_rank=0)
    for it in range(1000):
        x, y = get_batch(tokens)
        loss = torch.nn.functional.cross_entropy(model(x).view(-1, 5000), y.view(-1))
        opt.zero_grad()
        loss.backward()
        opt.step()
        if it % 100 == 0:
            avg = hvd.allreduce(loss.detach(), name="loss")
            if hvd.rank() == 0:
                print(it, avg.item())
                torch.save(model.state_dict(), "lm.pt")
""").lstrip())


def test_windows_drawn_inside_each_ranks_own_slice_are_disjoint(tmp_path):
    own = LM.replace("OWN", "tokens = stream[hvd.rank() * span:(hvd.rank() + 1) * span]")
    crash, flagged = check(tmp_path, own)
    assert crash is None and 3 not in flagged, flagged


def test_windows_drawn_from_the_whole_stream_on_every_rank_are_wrong(tmp_path):
    whole = LM.replace("OWN", "tokens = stream")
    assert check(tmp_path, whole)[1].get(3) in ("wrong", "missing")
