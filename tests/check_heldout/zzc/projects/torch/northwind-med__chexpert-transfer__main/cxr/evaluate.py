import torch


@torch.no_grad()
def evaluate(model, loader, criterion, device, threshold=0.5):
    model.eval()
    total_loss, n = 0.0, 0
    hits = None
    for images, targets in loader:
        images, targets = images.to(device), targets.to(device)
        logits = model(images)
        total_loss += criterion(logits, targets).item() * images.size(0)
        pred = (torch.sigmoid(logits) > threshold).float()
        batch_hits = (pred == targets).float().sum(0)
        hits = batch_hits if hits is None else hits + batch_hits
        n += images.size(0)
    per_finding = (hits / max(n, 1)).cpu()
    return {"loss": total_loss / max(n, 1), "per_finding": per_finding.tolist(),
            "mean_acc": per_finding.mean().item()}
