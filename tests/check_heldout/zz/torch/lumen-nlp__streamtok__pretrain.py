"""Small LM pretraining on streamed jsonl shards (horovod)."""
import argparse
import logging

import horovod.torch as hvd
import torch
import torch.nn as nn
from torch.utils.data import DataLoader

from streamtok.config import TrainConfig
from streamtok.corpus import PackedTextStream
from streamtok.trainer import Trainer


class TinyLM(nn.Module):
    def __init__(self, vocab, d):
        super().__init__()
        self.emb = nn.Embedding(vocab, d)
        self.rnn = nn.GRU(d, d, num_layers=2, batch_first=True)
        self.head = nn.Linear(d, vocab)

    def forward(self, x):
        h, _ = self.rnn(self.emb(x))
        return self.head(h)


def get_args():
    ap = argparse.ArgumentParser()
    ap.add_argument("--config", default="configs/small.json")
    ap.add_argument("--lr", type=float)
    ap.add_argument("--batch_size", type=int)
    ap.add_argument("--epochs", type=int)
    ap.add_argument("--out_dir")
    return ap.parse_args()


def main():
    args = get_args()
    hvd.init()
    logging.basicConfig(level=logging.INFO if hvd.rank() == 0 else logging.WARNING)

    cfg = TrainConfig.from_json(args.config, lr=args.lr, batch_size=args.batch_size,
                                epochs=args.epochs, out_dir=args.out_dir)
    cfg.local_rank = hvd.local_rank()
    cfg.world_size = hvd.size()

    if torch.cuda.is_available():
        torch.cuda.set_device(cfg.local_rank)
        device = torch.device("cuda")
    else:
        device = torch.device("cpu")
    torch.manual_seed(42)

    train_ds = PackedTextStream(cfg.train_glob, cfg.vocab_size, cfg.seq_len, seed=42)
    eval_ds = PackedTextStream(cfg.eval_glob, cfg.vocab_size, cfg.seq_len,
                               shuffle=False, repeat=False)
    train_dl = DataLoader(train_ds, batch_size=cfg.batch_size, num_workers=cfg.num_workers)
    eval_dl = DataLoader(eval_ds, batch_size=cfg.batch_size, num_workers=0)

    model = TinyLM(cfg.vocab_size, cfg.d_model).to(device)
    opt = torch.optim.AdamW(model.parameters(), lr=cfg.lr * cfg.world_size,
                            weight_decay=cfg.weight_decay)
    trainer = Trainer(cfg, model, opt, device)

    for epoch in range(cfg.epochs):
        trainer.train_epoch(train_dl, epoch)
        loss, ppl = trainer.evaluate(eval_dl)
        if hvd.rank() == 0:
            logging.info("epoch %d heldout loss %.4f ppl %.1f", epoch, loss, ppl)
        trainer.save(epoch)


if __name__ == "__main__":
    main()
