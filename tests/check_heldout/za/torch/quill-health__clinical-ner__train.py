"""BiLSTM-CRF clinical concept tagger (problem / test / treatment), Horovod data parallel."""
import argparse
import os

import horovod.torch as hvd
import torch

from ner import config as C
from ner.data import build_vocab, encode, make_loader, read_conll
from ner.model import CRF, Encoder
from ner.optim import build_optimizer


def spans(tags, id2tag):
    out, start = set(), None
    for i, t in enumerate([id2tag[x] for x in tags] + ["O"]):
        if start is not None and not t.startswith("I-"):
            out.add((start, i, label))
            start = None
        if t.startswith("B-"):
            start, label = i, t[2:]
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--config", default="configs/ner.yaml")
    args = ap.parse_args()

    hvd.init()
    if torch.cuda.is_available():
        torch.cuda.set_device(hvd.local_rank())
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    cfg = C.load(args.config)

    train_s, dev_s = read_conll(cfg.train), read_conll(cfg.dev)
    vocab = build_vocab(train_s, cfg.max_vocab)
    tag_ids = {t: i for i, t in enumerate(cfg.tags)}
    id2tag = {i: t for t, i in tag_ids.items()}
    train_dl = make_loader(encode(train_s, vocab, tag_ids), cfg.batch_size, hvd.rank(), hvd.size(), True)
    dev_dl = make_loader(encode(dev_s, vocab, tag_ids), cfg.batch_size, hvd.rank(), hvd.size(), False)

    encoder = Encoder(len(vocab) + 2, len(tag_ids), cfg.emb_dim, cfg.hidden).to(device)
    crf = CRF(len(tag_ids)).to(device)
    optimizer = build_optimizer(encoder, crf, cfg)
    hvd.broadcast_parameters(encoder.state_dict(), root_rank=0)
    hvd.broadcast_parameters(crf.state_dict(), root_rank=0)
    hvd.broadcast_optimizer_state(optimizer, root_rank=0)

    for epoch in range(cfg.epochs):
        encoder.train()
        train_dl.sampler.set_epoch(epoch)
        for x, y, mask in train_dl:
            x, y, mask = x.to(device), y.to(device), mask.to(device)
            optimizer.zero_grad()
            loss = crf.nll(encoder(x), y, mask)
            loss.backward()
            optimizer.synchronize()
            torch.nn.utils.clip_grad_norm_(list(encoder.parameters()) + list(crf.parameters()), cfg.clip)
            with optimizer.skip_synchronize():
                optimizer.step()

        encoder.eval()
        counts = torch.zeros(3)  # true positives, predicted, gold
        with torch.no_grad():
            for x, y, mask in dev_dl:
                pred = crf.decode(encoder(x.to(device)), mask.to(device)).cpu()
                for p, g, m in zip(pred, y, mask):
                    n = int(m.sum())
                    ps, gs = spans(p[:n].tolist(), id2tag), spans(g[:n].tolist(), id2tag)
                    counts += torch.tensor([len(ps & gs), len(ps), len(gs)], dtype=torch.float)
        tp, n_pred, n_gold = hvd.allreduce(counts, op=hvd.Sum, name="ner_counts").tolist()
        f1 = 2 * tp / max(1.0, n_pred + n_gold)
        if hvd.rank() == 0:
            print(f"epoch {epoch} loss {loss.item():.4f} dev entity F1 {f1:.4f}", flush=True)
            os.makedirs(cfg.out, exist_ok=True)
            torch.save({"encoder": encoder.state_dict(), "crf": crf.state_dict(), "vocab": vocab},
                       os.path.join(cfg.out, "last.pt"))


if __name__ == "__main__":
    main()
