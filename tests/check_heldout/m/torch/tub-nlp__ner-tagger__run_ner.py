"""Named-entity tagger (BiLSTM) trained data-parallel with Horovod.

horovodrun -np 4 python run_ner.py --train_file data/conll03/train.txt --dev_file data/conll03/dev.txt
"""
import argparse
import logging
import os

import torch
import torch.nn.functional as F
import horovod.torch as hvd

from nerkit import BiLSTMTagger
from nerkit.data import build_loaders
from nerkit.metrics import count_batch, f1_from_counts
from nerkit.optim import build_optimizer, build_scheduler
from nerkit.utils import save_checkpoint, set_seed

logger = logging.getLogger("run_ner")


def get_args():
    p = argparse.ArgumentParser()
    p.add_argument("--train_file", required=True)
    p.add_argument("--dev_file", required=True)
    p.add_argument("--output_dir", default="outputs/ner")
    p.add_argument("--batch_size", type=int, default=32)
    p.add_argument("--eval_batch_size", type=int, default=64)
    p.add_argument("--gradient_accumulation_steps", type=int, default=2)
    p.add_argument("--lr", type=float, default=1e-3)
    p.add_argument("--weight_decay", type=float, default=0.01)
    p.add_argument("--warmup_ratio", type=float, default=0.1)
    p.add_argument("--max_grad_norm", type=float, default=1.0)
    p.add_argument("--epochs", type=int, default=20)
    p.add_argument("--save_every_epochs", type=int, default=5)
    p.add_argument("--seed", type=int, default=13)
    p.add_argument("--no_cuda", action="store_true")
    return p.parse_args()


@torch.no_grad()
def evaluate(model, loader, tag_vocab, device):
    model.eval()
    counts = torch.zeros(3, dtype=torch.float64)
    for words, tags in loader:
        logits = model(words.to(device))
        counts += count_batch(logits.argmax(-1).cpu(), tags, tag_vocab)
    counts = hvd.allreduce(counts, op=hvd.Sum, name="dev_counts")
    return f1_from_counts(counts)


def main():
    args = get_args()
    hvd.init()
    logging.basicConfig(level=logging.INFO if hvd.rank() == 0 else logging.WARNING,
                        format="%(asctime)s %(levelname)s %(message)s")
    use_cuda = torch.cuda.is_available() and not args.no_cuda
    if use_cuda:
        torch.cuda.set_device(hvd.local_rank())
    device = torch.device("cuda" if use_cuda else "cpu")
    set_seed(args.seed)

    train_loader, dev_loader, word_vocab, tag_vocab = build_loaders(args, hvd.rank(), hvd.size())
    model = BiLSTMTagger(len(word_vocab), len(tag_vocab)).to(device)

    accum = args.gradient_accumulation_steps
    optimizer = build_optimizer(model, args.lr * hvd.size(), args.weight_decay)
    optimizer = hvd.DistributedOptimizer(optimizer, named_parameters=model.named_parameters(),
                                         backward_passes_per_step=accum)
    updates_per_epoch = len(train_loader) // accum
    total_steps = args.epochs * updates_per_epoch
    scheduler = build_scheduler(optimizer, args, total_steps)

    hvd.broadcast_parameters(model.state_dict(), root_rank=0)
    hvd.broadcast_optimizer_state(optimizer, root_rank=0)

    global_step = 0
    for epoch in range(args.epochs):
        model.train()
        train_loader.sampler.set_epoch(epoch)
        running = 0.0
        for i, (words, tags) in enumerate(train_loader):
            if i >= updates_per_epoch * accum:
                break  # keep whole accumulation groups so Horovod's counters stay aligned
            words, tags = words.to(device), tags.to(device)
            logits = model(words)
            loss = F.cross_entropy(logits.flatten(0, 1), tags.flatten(), ignore_index=-100) / accum
            loss.backward()
            running += loss.item()
            if (i + 1) % accum == 0:
                optimizer.synchronize()
                torch.nn.utils.clip_grad_norm_(model.parameters(), args.max_grad_norm)
                with optimizer.skip_synchronize():
                    optimizer.step()
                scheduler.step()
                optimizer.zero_grad()
                global_step += 1
        p, r, f1 = evaluate(model, dev_loader, tag_vocab, device)
        logger.info("epoch %d step %d train_loss(rank0) %.4f dev P %.4f R %.4f F1 %.4f",
                    epoch, global_step, running / max(1, updates_per_epoch), p, r, f1)
        if (epoch + 1) % args.save_every_epochs == 0:
            save_checkpoint(args.output_dir, global_step, model, optimizer, scheduler, args,
                            word_vocab, tag_vocab)
    if hvd.rank() == 0:
        os.makedirs(args.output_dir, exist_ok=True)
        torch.save(model.state_dict(), os.path.join(args.output_dir, "final_model.bin"))


if __name__ == "__main__":
    main()
