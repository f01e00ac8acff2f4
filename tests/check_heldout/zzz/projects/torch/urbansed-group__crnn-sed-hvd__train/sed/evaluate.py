import numpy as np
import torch
import horovod.torch as hvd


def clip_auc(targets, scores):
    aucs = []
    for k in range(targets.shape[1]):
        pos, neg = scores[targets[:, k] > 0, k], scores[targets[:, k] == 0, k]
        if len(pos) and len(neg):
            aucs.append((pos[:, None] > neg[None, :]).mean() + 0.5 * (pos[:, None] == neg[None, :]).mean())
    return float(np.mean(aucs)) if aucs else 0.0


@torch.no_grad()
def evaluate_shard(model, loader, device, seg_frames=50):
    """Segment-level (1 s) TP/FP/FN counts and clip-level AUC on this worker's files."""
    model.eval()
    tp = fp = fn = 0.0
    clip_scores, clip_targets = {}, {}
    for wav, y, fid in loader:
        frame, _ = model(wav.to(device))
        frame = frame.cpu()
        t = min(frame.size(1), y.size(1)) // seg_frames * seg_frames
        pred_seg = (frame[:, :t] > 0.5).float().unflatten(1, (-1, seg_frames)).amax(2)
        true_seg = y[:, :t].unflatten(1, (-1, seg_frames)).amax(2)
        tp += (pred_seg * true_seg).sum().item()
        fp += (pred_seg * (1 - true_seg)).sum().item()
        fn += ((1 - pred_seg) * true_seg).sum().item()
        for i, f in enumerate(fid.tolist()):
            s, g = frame[i].amax(0).numpy(), y[i].amax(0).numpy()
            clip_scores[f] = np.maximum(clip_scores.get(f, s), s)
            clip_targets[f] = np.maximum(clip_targets.get(f, g), g)
    model.train()
    keys = sorted(clip_scores)
    auc = clip_auc(np.stack([clip_targets[k] for k in keys]), np.stack([clip_scores[k] for k in keys]))
    return {"tp": tp, "fp": fp, "fn": fn, "clip_auc": auc}


def reduce_metrics(metrics):
    """Combine the per-worker dicts from evaluate_shard."""
    total = {k: hvd.allreduce(torch.tensor(v, dtype=torch.float64), op=hvd.Sum, name=f"eval.{k}").item()
             for k, v in metrics.items()}
    precision = total["tp"] / max(total["tp"] + total["fp"], 1.0)
    recall = total["tp"] / max(total["tp"] + total["fn"], 1.0)
    total["segment_f1"] = 2 * precision * recall / max(precision + recall, 1e-8)
    return total
