"""Train the Conv-BiGRU secondary-structure predictor on several GPUs.

    horovodrun -np 4 python scripts/train.py --train data/train.jsonl --dev data/cb513.jsonl
"""
import argparse
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

import torch  # noqa: E402
import torch.nn.functional as F  # noqa: E402

from sspred.checkpoint import CheckpointSaver  # noqa: E402
from sspred.data import IGNORE, SeqDataModule  # noqa: E402
from sspred.dist import hvd, lr_multiplier, setup  # noqa: E402
from sspred.metrics import MeanLoss, Q3Accuracy  # noqa: E402
from sspred.model import ConvBiGRU  # noqa: E402


def parse():
    ap = argparse.ArgumentParser()
    ap.add_argument("--train", default="data/train.jsonl")
    ap.add_argument("--dev", default="data/cb513.jsonl")
    ap.add_argument("--out", default="checkpoints")
    ap.add_argument("--epochs", type=int, default=30)
    ap.add_argument("--batch-size", type=int, default=32)
    ap.add_argument("--lr", type=float, default=5e-4)
    ap.add_argument("--use-adasum", action="store_true")
    ap.add_argument("--no-cuda", action="store_true")
    ap.add_argument("--log-interval", type=int, default=100)
    ap.add_argument("--seed", type=int, default=7)
    return ap.parse_args()


def main():
    args = parse()
    device = setup(no_cuda=args.no_cuda)
    torch.manual_seed(args.seed)

    dm = SeqDataModule(args.train, args.dev, rank=hvd.rank(), world_size=hvd.size(),
                       batch_size=args.batch_size).setup()
    model = ConvBiGRU().to(device)
    adamw = torch.optim.AdamW(model.parameters(), lr=args.lr * lr_multiplier(args.use_adasum), weight_decay=0.01)
    adamw = hvd.DistributedOptimizer(adamw, named_parameters=model.named_parameters(),
                                     op=hvd.Adasum if args.use_adasum else hvd.Average)
    hvd.broadcast_parameters(model.state_dict(), root_rank=0)
    hvd.broadcast_optimizer_state(adamw, root_rank=0)
    saver = CheckpointSaver(args.out)

    steps = hvd.allreduce(torch.tensor(dm.steps_per_epoch()), op=hvd.Min, name="steps").item()
    for epoch in range(args.epochs):
        model.train()
        train_loss = MeanLoss()
        for step, (seq, ss) in enumerate(dm.train_batches(epoch)):
            if step == steps:
                break
            seq, ss = seq.to(device), ss.to(device)
            adamw.zero_grad()
            logits = model(seq)
            loss = F.cross_entropy(logits.reshape(-1, 3), ss.reshape(-1), ignore_index=IGNORE)
            loss.backward()
            adamw.step()
            train_loss.update(loss.item(), seq.size(0))
            if step % args.log_every == 0 and hvd.rank() == 0:
                print(f"epoch {epoch} step {step}/{steps} loss {loss.item():.4f}", flush=True)

        model.eval()
        q3 = Q3Accuracy()
        with torch.no_grad():
            for seq, ss in dm.dev_batches():
                q3.update(model(seq.to(device)), ss.to(device))
        mean_train, dev_q3 = train_loss.compute(), q3.compute()
        if hvd.rank() == 0:
            print(f"== epoch {epoch}: train loss {mean_train:.4f}  dev Q3 {dev_q3:.4f}")
        saver.save(epoch, model, adamw, dev_q3=dev_q3)


if __name__ == "__main__":
    main()
