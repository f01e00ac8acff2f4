import numpy as np


def top_k_report(model, dataset, k=5):
    """Top-1 / top-k accuracy of `model` over the whole `dataset` (run on one process)."""
    hits1 = hitsk = total = 0
    for images, labels in dataset:
        probs = model(images, training=False).numpy()
        labels = labels.numpy()
        topk = np.argsort(-probs, axis=1)[:, :k]
        hits1 += int((topk[:, 0] == labels).sum())
        hitsk += int((topk == labels[:, None]).any(1).sum())
        total += len(labels)
    return {"top1": hits1 / max(total, 1), f"top{k}": hitsk / max(total, 1), "images": total}
