import torch
import torch.nn.functional as F

from .dist import global_sum


def lr_at(epoch, base_lr, milestones=(100, 150)):
    return base_lr * (0.1 ** sum(epoch >= m for m in milestones))


def train_epoch(model, loader, optimizer, scaler, attack, device):
    model.train()
    loss_sum, correct, seen = 0.0, 0, 0
    for x, y in loader:
        x, y = x.to(device, non_blocking=True), y.to(device, non_blocking=True)
        x_adv = attack(model, x, y)
        optimizer.zero_grad()
        with torch.autocast(device_type=device.type, enabled=scaler.is_enabled()):
            out = model(x_adv)
            loss = F.cross_entropy(out, y)
        scaler.scale(loss).backward()
        # allreduce first, then unscale the averaged gradients
        optimizer.synchronize()
        scaler.unscale_(optimizer)
        torch.nn.utils.clip_grad_norm_(model.parameters(), 5.0)
        with optimizer.skip_synchronize():
            scaler.step(optimizer)
        scaler.update()
        loss_sum += loss.item() * y.size(0)
        correct += (out.argmax(1) == y).sum().item()
        seen += y.size(0)
    loss_sum, correct, seen = global_sum([loss_sum, correct, seen], "train_stats")
    return loss_sum / seen, correct / seen


def evaluate(model, loader, attack, device):
    model.eval()
    clean, robust, seen = 0, 0, 0
    for x, y in loader:
        x, y = x.to(device), y.to(device)
        with torch.no_grad():
            clean += (model(x).argmax(1) == y).sum().item()
        x_adv = attack(model, x, y)
        with torch.no_grad():
            robust += (model(x_adv).argmax(1) == y).sum().item()
        seen += y.size(0)
    clean, robust, seen = global_sum([clean, robust, seen], "eval_stats")
    return clean / seen, robust / seen
