import torch
import torch.nn.functional as F

from .data import ImageList, sharded_loader


@torch.no_grad()
def pseudo_label(teacher, files, device, threshold=0.7, batch_size=256):
    """Run the (clean) teacher over the unlabelled images; keep confident hard labels."""
    teacher.eval()
    loader = sharded_loader(ImageList(files), batch_size, shuffle=False)
    keep_paths, keep_labels = [], []
    for x, idx in loader:
        prob = F.softmax(teacher(x.to(device)), dim=1)
        conf, label = prob.max(dim=1)
        for i, c, y in zip(idx.tolist(), conf.tolist(), label.tolist()):
            if c >= threshold:
                keep_paths.append(files[i])
                keep_labels.append(y)
    return keep_paths, keep_labels
