import os

import horovod.torch as hvd
import torch
import torch.nn.functional as F

from nlu.device import is_main, pin_device


def evaluate(model, loader, device):
    model.eval()
    intent_ok = n = slot_tp = slot_pred = slot_gold = 0
    with torch.no_grad():
        for words, slots, intents in loader:
            slot_logits, intent_logits = model(words.to(device))
            intent_ok += (intent_logits.argmax(-1).cpu() == intents).sum().item()
            n += len(intents)
            pred, mask = slot_logits.argmax(-1).cpu(), words.ne(0)
            slot_tp += ((pred == slots) & mask & (slots > 2)).sum().item()
            slot_pred += ((pred > 2) & mask).sum().item()
            slot_gold += ((slots > 2) & mask).sum().item()
    model.train()
    p, r = slot_tp / max(slot_pred, 1), slot_tp / max(slot_gold, 1)
    return intent_ok / max(n, 1), 2 * p * r / max(p + r, 1e-9)


def launch(cfg, model, train_loader, dev_loader):
    device = pin_device()
    model.to(device)
    optimizer = torch.optim.Adam(model.parameters(), lr=cfg["lr"] * hvd.size())
    optimizer = hvd.DistributedOptimizer(optimizer, named_parameters=model.named_parameters())
    hvd.broadcast_parameters(model.state_dict(), root_rank=0)
    hvd.broadcast_optimizer_state(optimizer, root_rank=0)
    warmup = cfg["warmup_steps"]
    scheduler = torch.optim.lr_scheduler.LambdaLR(
        optimizer, lambda s: min(1.0, (s + 1) / warmup) * 0.5 ** (s // cfg["decay_every"]))

    for epoch in range(cfg["epochs"]):
        for words, slots, intents in train_loader:
            words, slots, intents = words.to(device), slots.to(device), intents.to(device)
            slot_logits, intent_logits = model(words)
            loss = F.cross_entropy(slot_logits.transpose(1, 2), slots, ignore_index=0) \
                + F.cross_entropy(intent_logits, intents, label_smoothing=cfg["label_smoothing"])
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            scheduler.step()
        acc, f1 = evaluate(model, dev_loader, device)
        if is_main():
            print(f"epoch {epoch}: intent acc {acc:.4f} slot F1 {f1:.4f}")
            os.makedirs(cfg["out_dir"], exist_ok=True)
            torch.save(model.state_dict(), os.path.join(cfg["out_dir"], f"joint_{epoch}.pt"))
