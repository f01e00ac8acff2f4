import time
import torch
import torch.nn.functional as F

from .dist import is_master, all_sum


def train_one_epoch(model, loader, optimizer, scheduler, device, epoch, log_every=20):
    model.train()
    t0 = time.time()
    for it, (clips, labels) in enumerate(loader):
        clips, labels = clips.to(device, non_blocking=True), labels.to(device)
        loss = F.cross_entropy(model(clips), labels)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        scheduler.step()
        if is_master() and it % log_every == 0:
            print(f"[ep {epoch} it {it}] loss {loss.item():.4f} "
                  f"lr {scheduler.get_last_lr()[0]:.5f} ({time.time() - t0:.1f}s)")


@torch.no_grad()
def evaluate_multiclip(model, dataset, video_ids, num_clips, device):
    """Average softmax over num_clips clips per video; return global video accuracy."""
    model.eval()
    correct = 0
    for vid in video_ids:
        clips = torch.stack([dataset.decode(vid, c) for c in range(num_clips)]).to(device)
        probs = model(clips).softmax(dim=1).mean(dim=0)
        correct += int(probs.argmax().item() == dataset.label(vid))
    total_correct, total = all_sum([correct, len(video_ids)], name="val_video_acc")
    return total_correct / max(total, 1)
