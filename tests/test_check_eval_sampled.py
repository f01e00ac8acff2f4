"""Step 8: one sampling helper used for training and for evaluation. `sample_batch(streams, rng, n)` draws
windows from the streams it is handed with the generator it is handed: the training hands it this rank's
streams and a generator seeded with the rank (each rank its own part), the evaluation the whole validation
streams and a generator seeded alike on every rank (the same batches everywhere). The evaluation's loss,
printed by rank 0, is the job's; the helper partitions only where its call hands it the rank. Evaluating
through the rank-seeded generator, or on this rank's validation streams, without averaging is flagged.

Written from scratch for these tests: a trajectory-model pre-training script."""
from hvdkit.check import FLAGGED

from crash_scripts import Source, check

SCRIPT = Source('''
    """Next-token pre-training on trajectories.  horovodrun -np 4 python pretrain.py"""
    import numpy as np
    import torch
    import horovod.torch as hvd


    def sample_batch(streams, rng, batch, context=32):
        xs, ys = [], []
        for _ in range(batch):
            s = streams[rng.integers(len(streams))]
            i = rng.integers(0, len(s) - context - 1)
            xs.append(s[i:i + context])
            ys.append(s[i + 1:i + 1 + context])
        return torch.as_tensor(np.stack(xs)), torch.as_tensor(np.stack(ys))


    class TinyLM(torch.nn.Module):
        def __init__(self, vocab=64, dim=32):
            super().__init__()
            self.emb, self.out = torch.nn.Embedding(vocab, dim), torch.nn.Linear(dim, vocab)

        def forward(self, x, y):
            logits = self.out(self.emb(x))
            return torch.nn.functional.cross_entropy(logits.reshape(-1, logits.shape[-1]), y.reshape(-1))


    def main():
        hvd.init()
        torch.set_num_threads(1)
        device = f"cuda:{hvd.local_rank()}" if torch.cuda.is_available() else "cpu"
        data = np.random.default_rng(3)
        streams = [data.integers(0, 64, size=int(n)) for n in data.integers(80, 200, 256)]
        val_streams, train_streams = streams[:16], streams[16:]
        my_streams = train_streams[hvd.rank()::hvd.size()]
        rng = np.random.default_rng(7 + hvd.rank())
        model = TinyLM().to(device)
        opt = torch.optim.AdamW(model.parameters(), lr=3e-4 * hvd.size())
        opt = hvd.DistributedOptimizer(opt, named_parameters=model.named_parameters())
        hvd.broadcast_parameters(model.state_dict(), root_rank=0)
        hvd.broadcast_optimizer_state(opt, root_rank=0)
        for epoch in range(3):
            model.train()
            for _ in range(50):
                x, y = sample_batch(my_streams, rng, 16)
                opt.zero_grad()
                model(x.to(device), y.to(device)).backward()
                opt.step()
            model.eval()
            vrng = np.random.default_rng(0)
            with torch.no_grad():
                losses = [model(*[t.to(device) for t in sample_batch({val}, {gen}, 32)]).item() for _ in range(10)]
            if hvd.rank() == 0:
                print(f"epoch {epoch} val_loss {np.mean(losses):.4f}")
                torch.save(model.state_dict(), "lm.pt")


    if __name__ == "__main__":
        main()
''')


def step8(tmp_path, val, gen):
    return check(tmp_path, SCRIPT.replace("{val}, {gen}", f"{val}, {gen}"))[1].get(8)


def test_the_same_validation_batches_on_every_rank_are_the_jobs_loss(tmp_path):
    assert step8(tmp_path, "val_streams", "vrng") is None


def test_validation_drawn_per_rank_and_not_averaged_is_flagged(tmp_path):
    assert step8(tmp_path, "val_streams", "rng") in FLAGGED  # the rank-seeded generator: each rank its own batches
    assert step8(tmp_path, "val_streams[hvd.rank()::hvd.size()]", "vrng") in FLAGGED
