"""Joint intent detection + slot filling on ATIS/SNIPS (jsonl), Horovod data parallel."""
import argparse

import horovod.torch as hvd
import torch
from torch.utils.data import DataLoader

from nlu.dataset import IntentSlotDataset, Vocab, collate, load_atis
from nlu.model import JointIntentSlot
from nlu.runner import launch


def build_parser():
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--train", default="data/atis/train.jsonl")
    p.add_argument("--dev", default="data/atis/dev.jsonl")
    p.add_argument("--batch-size", type=int, default=32)
    p.add_argument("--lr", type=float, default=1e-3)
    p.add_argument("--epochs", type=int, default=20)
    p.add_argument("--warmup-steps", type=int, default=300)
    p.add_argument("--decay-every", type=int, default=3000)
    p.add_argument("--label-smoothing", type=float, default=0.1)
    p.add_argument("--out-dir", default="runs/joint")
    return p


def main():
    cfg = vars(build_parser().parse_args())
    hvd.init()
    torch.manual_seed(0)

    train_rows, dev_rows = load_atis(cfg["train"]), load_atis(cfg["dev"])
    words = Vocab(w for r in train_rows for w in r["tokens"])
    slots = Vocab((s for r in train_rows for s in r["slots"]), specials=("<pad>", "<unk>", "O"))
    intents = Vocab((r["intent"] for r in train_rows), specials=("<unk>",))

    train_ds = IntentSlotDataset(train_rows, words, slots, intents)
    dev_ds = IntentSlotDataset(dev_rows, words, slots, intents)
    train_loader = DataLoader(train_ds, batch_size=cfg["batch_size"], shuffle=True, collate_fn=collate,
                              drop_last=True)
    dev_loader = DataLoader(dev_ds, batch_size=128, collate_fn=collate)

    model = JointIntentSlot(len(words), len(slots), len(intents))
    launch(cfg, model, train_loader, dev_loader)


if __name__ == "__main__":
    main()
