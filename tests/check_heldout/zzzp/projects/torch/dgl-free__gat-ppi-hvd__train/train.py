"""GAT on PPI (inductive, 20 train graphs), horovod.

The training graphs are dealt out to the workers; F1 counts are summed across workers.
Also used by the benchmark pipeline: `from train import main; main(["--epochs", "5"])`.
"""
import torch
import horovod.torch as hvd

from gatppi.options import get_args
from gatppi.ppi_data import load_split, N_FEATS, N_LABELS
from gatppi.layers import GAT
from gatppi.trainer import PPITrainer
from gatppi.utils import init_horovod, save_checkpoint, log


def main(argv=None):
    args = get_args(argv)
    device = init_horovod()
    torch.manual_seed(args.seed)

    train_g = load_split(args.data, "train")
    valid_g = load_split(args.data, "valid")
    # contiguous block of graph ids per worker; same count everywhere so the allreduces line up
    per = len(train_g) // hvd.size()
    my_train = list(range(hvd.rank() * per, (hvd.rank() + 1) * per))
    my_valid = list(range(hvd.rank(), len(valid_g), hvd.size()))

    model = GAT(N_FEATS, args.hidden, N_LABELS, args.heads).to(device)
    trainer = PPITrainer(model, args.lr, args.warmup_epochs, device)
    trainer.sync_initial_state()

    best = 0.0
    for epoch in range(args.epochs):
        g = torch.Generator().manual_seed(epoch)
        order = [my_train[i] for i in torch.randperm(len(my_train), generator=g).tolist()]
        loss = trainer.train_epoch(train_g, order, args.batch_graphs, epoch)
        f1 = trainer.micro_f1(valid_g, my_valid)
        best = max(best, f1)
        log("epoch %d | loss %.4f | val micro-F1 %.4f | best %.4f" % (epoch, loss, f1, best))
        if (epoch + 1) % args.save_every == 0:
            save_checkpoint(model, trainer.opt, epoch, args.ckpt_dir)
    return best


if __name__ == "__main__":
    main()
