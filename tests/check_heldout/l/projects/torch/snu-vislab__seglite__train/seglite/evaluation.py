import torch
import horovod.torch as hvd


@torch.no_grad()
def evaluate(model, loader, num_classes, device, ignore_index=255):
    """Mean IoU over the whole validation split, merged across ranks."""
    model.eval()
    confmat = torch.zeros(num_classes, num_classes, dtype=torch.int64, device=device)
    for image, target in loader:
        image, target = image.to(device), target.to(device)
        pred = model(image).argmax(1)
        keep = target != ignore_index
        idx = target[keep] * num_classes + pred[keep]
        confmat += torch.bincount(idx, minlength=num_classes ** 2).view(num_classes, num_classes)
    confmat = hvd.allreduce(confmat.cpu(), op=hvd.Sum, name="val.confmat").double()
    iou = confmat.diag() / (confmat.sum(0) + confmat.sum(1) - confmat.diag()).clamp(min=1)
    acc = confmat.diag().sum() / confmat.sum().clamp(min=1)
    model.train()
    return {"mIoU": iou.mean().item(), "pixAcc": acc.item()}
