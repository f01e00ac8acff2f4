#!/usr/bin/env python3
"""Mixed-precision transformer NMT benchmark (Horovod).  See README for throughput numbers."""
import logging
import os
import time

import torch
import horovod.torch as hvd

from nmtamp import data
from nmtamp.model import TinyTransformer
from nmtamp.options import get_parser
from nmtamp.trainer import Trainer
from nmtamp.utils import reduce_sum

logging.basicConfig(format="%(asctime)s | %(name)s | %(message)s", level=logging.INFO)
logger = logging.getLogger("train_amp")


def main(args):
    hvd.init()
    torch.manual_seed(args.seed)
    if torch.cuda.is_available():
        torch.cuda.set_device(hvd.local_rank())
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    master = hvd.rank() == 0

    src, tgt, vocab_size = data.load_split(os.path.join(args.data, "train"))
    vsrc, vtgt, _ = data.load_split(os.path.join(args.data, "valid"))
    it = data.EpochIterator(data.batch_by_size(src, tgt, args.max_tokens), args.seed, hvd.rank(), hvd.size())
    vb = data.batch_by_size(vsrc, vtgt, args.max_tokens)[hvd.rank()::hvd.size()]
    valid = [data.make_tensors(vsrc, vtgt, b, device) for b in vb]

    model = TinyTransformer(vocab_size).to(device)
    peak_lr = args.lr * hvd.size()
    optimizer = torch.optim.Adam(model.parameters(), lr=peak_lr, betas=(0.9, 0.98), eps=1e-9)
    hvd.broadcast_parameters(model.state_dict(), root_rank=0)
    hvd.broadcast_optimizer_state(optimizer, root_rank=0)
    hvd.DistributedOptimizer(optimizer, named_parameters=model.named_parameters(),
                             compression=hvd.Compression.fp16)

    trainer = Trainer(args, model, optimizer, peak_lr)
    epoch = 0
    while trainer.num_updates < args.max_update:
        epoch += 1
        t0, tok = time.time(), 0
        for idx in it.epoch(epoch):
            s, t = data.make_tensors(src, tgt, idx, device)
            loss, ntok, lr = trainer.train_step(s, t)
            tok += ntok
            trainer.maybe_save(epoch)
            if trainer.num_updates % args.log_interval == 0:
                wps = reduce_sum([tok / (time.time() - t0)], "wps")[0]
                if master:
                    logger.info("ep %d upd %d loss %.3f lr %.2e wps %.0f", epoch, trainer.num_updates,
                                loss, lr, wps)
            if trainer.num_updates >= args.max_update:
                break
        vloss = trainer.valid_loss(valid)
        if master:
            logger.info("epoch %d valid loss %.3f ppl %.2f", epoch, vloss, 2.718281828 ** vloss)


if __name__ == "__main__":
    main(get_parser().parse_args())
