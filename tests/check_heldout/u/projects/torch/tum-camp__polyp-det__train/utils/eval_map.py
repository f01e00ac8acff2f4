"""Single-box polyp detection metrics: AP@0.5 over images (one GT box per positive frame)."""
import numpy as np
import torch


def box_iou(a, b):
    lt = torch.maximum(a[:, :2], b[:, :2])
    rb = torch.minimum(a[:, 2:], b[:, 2:])
    inter = (rb - lt).clamp(min=0).prod(1)
    area = lambda x: (x[:, 2:] - x[:, :2]).clamp(min=0).prod(1)  # noqa: E731
    return inter / (area(a) + area(b) - inter + 1e-6)


def average_precision(scores, hits, n_pos):
    order = np.argsort(-scores)
    tp = hits[order].astype(np.float64)
    fp = 1.0 - tp
    tp, fp = np.cumsum(tp), np.cumsum(fp)
    rec = tp / max(n_pos, 1)
    prec = tp / np.maximum(tp + fp, 1e-9)
    mrec = np.concatenate([[0.0], rec, [1.0]])
    mpre = np.concatenate([[1.0], prec, [0.0]])
    for i in range(len(mpre) - 2, -1, -1):
        mpre[i] = max(mpre[i], mpre[i + 1])
    idx = np.where(mrec[1:] != mrec[:-1])[0]
    return float(np.sum((mrec[idx + 1] - mrec[idx]) * mpre[idx + 1]))


@torch.no_grad()
def evaluate_map(model, loader, device, iou_thr=0.5):
    model.eval()
    scores, hits, n_pos = [], [], 0
    for img, has_polyp, box in loader:
        logit, pred_box = model(img.to(device))
        s = torch.sigmoid(logit).cpu()
        iou = box_iou(pred_box.cpu(), box)
        scores.append(s.numpy())
        hits.append(((iou >= iou_thr) & (has_polyp > 0.5)).numpy())
        n_pos += int(has_polyp.sum())
    scores, hits = np.concatenate(scores), np.concatenate(hits)
    return {"AP50": average_precision(scores, hits, n_pos), "n_images": len(scores)}
