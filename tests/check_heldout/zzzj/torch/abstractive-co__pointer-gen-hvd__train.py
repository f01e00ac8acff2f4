import logging
import os
import sys

import torch
import torch.nn.functional as F
import horovod.torch as hvd

from pgen import dist_utils
from pgen.batching import bucket_batches, load_tsv, load_vocab, tensorize
from pgen.config import Config
from pgen.decode import beam_search, rouge1_f
from pgen.model import PointerGenerator

logging.basicConfig(stream=sys.stdout, level=logging.INFO, format="%(asctime)s %(message)s")
log = logging.getLogger("pgen")


def run(cfg: Config):
    device = dist_utils.setup()
    torch.manual_seed(cfg.seed)
    train_rows = load_tsv(cfg.train_path, cfg.max_src_len, cfg.max_tgt_len)
    val_rows = load_tsv(cfg.val_path, cfg.max_src_len, cfg.max_tgt_len)
    if dist_utils.is_master():
        load_vocab(cfg.vocab_path, train_rows, cfg.vocab_size)
    hvd.barrier()
    vocab = load_vocab(cfg.vocab_path, train_rows, cfg.vocab_size)

    model = PointerGenerator(cfg.vocab_size + 4, cfg.emb, cfg.hidden).to(device)
    opt = torch.optim.Adagrad(model.parameters(), lr=cfg.lr * hvd.size(), initial_accumulator_value=0.1)
    hvd.broadcast_parameters(model.state_dict(), root_rank=0)
    hvd.broadcast_optimizer_state(opt, root_rank=0)
    opt = hvd.DistributedOptimizer(opt, named_parameters=model.named_parameters())

    my_val = list(range(hvd.rank(), len(val_rows), hvd.size()))
    for epoch in range(cfg.epochs):
        model.train()
        batches = bucket_batches(train_rows, cfg.max_tokens, cfg.seed + epoch, hvd.rank(), hvd.size())
        tot, n = 0.0, 0
        for idx in batches:
            src, tgt = (t.to(device) for t in tensorize(train_rows, idx, vocab))
            logp = model(src, tgt[:, :-1])
            loss = F.nll_loss(logp.transpose(1, 2), tgt[:, 1:], ignore_index=0)
            opt.zero_grad()
            loss.backward()
            opt.synchronize()
            torch.nn.utils.clip_grad_norm_(model.parameters(), 2.0)
            with opt.skip_synchronize():
                opt.step()
            tot, n = tot + loss.item(), n + 1
        train_loss = dist_utils.global_mean(tot, n, "train_loss")

        model.eval()
        r_sum = 0.0
        for i in my_val[:200]:
            src, tgt = (t.to(device) for t in tensorize(val_rows, [i], vocab))
            hyp = beam_search(model, src, cfg.beam_size, cfg.max_tgt_len)
            r_sum += rouge1_f(hyp, tgt[0, 1:-1].tolist())
        rouge = dist_utils.global_mean(r_sum, min(len(my_val), 200), "rouge1")
        if dist_utils.is_master():
            log.info("epoch %d train_loss %.4f val ROUGE-1 %.2f", epoch, train_loss, 100 * rouge)
            os.makedirs(cfg.ckpt_dir, exist_ok=True)
            torch.save(model.state_dict(), os.path.join(cfg.ckpt_dir, f"epoch{epoch}.pt"))


if __name__ == "__main__":
    run(Config())
