import argparse

import numpy as np
import torch
import horovod.torch as hvd

from mtnet import SegDepthNet, UncertaintyWeighting
from mtnet.datasets import make_loader
from mtnet.engine import Trainer

parser = argparse.ArgumentParser("seg+depth multi-task training (horovod)")
parser.add_argument("--data", default="/datasets/nyuv2_npz")
parser.add_argument("--out", default="./checkpoints")
parser.add_argument("--num-classes", type=int, default=13)
parser.add_argument("--batch-size", type=int, default=8, help="per GPU")
parser.add_argument("--epochs", type=int, default=40)
parser.add_argument("--base-lr", type=float, default=0.01)
parser.add_argument("--amp", action="store_true")
parser.add_argument("--workers", type=int, default=4)


@torch.no_grad()
def evaluate(model, loader, device, num_classes):
    model.eval()
    conf = np.zeros((num_classes, num_classes), dtype=np.int64)
    sq_err, n_pix = 0.0, 0
    for img, seg, depth in loader:
        img = img.to(device)
        seg_logits, depth_pred = model(img)
        pred = seg_logits.argmax(1).cpu().numpy().ravel()
        gt = seg.numpy().ravel()
        keep = gt < num_classes
        conf += np.bincount(num_classes * gt[keep] + pred[keep],
                            minlength=num_classes ** 2).reshape(num_classes, num_classes)
        d = depth.to(device)
        valid = d > 0
        sq_err += ((depth_pred[valid] - d[valid]) ** 2).sum().item()
        n_pix += valid.sum().item()
    iou = np.diag(conf) / np.maximum(conf.sum(0) + conf.sum(1) - np.diag(conf), 1)
    return {"miou": float(iou.mean()), "rmse": float(np.sqrt(sq_err / max(n_pix, 1)))}


def main():
    args = parser.parse_args()
    hvd.init()
    torch.cuda.set_device(hvd.local_rank())
    device = torch.device("cuda")
    torch.backends.cudnn.benchmark = True

    train_loader, train_sampler = make_loader(args.data, "train", args.batch_size, True, args.workers)
    val_loader, _ = make_loader(args.data, "val", args.batch_size, False, args.workers)

    model = SegDepthNet(args.num_classes).to(device)
    weighting = UncertaintyWeighting(num_tasks=2).to(device)
    params = list(model.parameters()) + list(weighting.parameters())
    named = list(model.named_parameters()) + [("weighting." + n, p) for n, p in weighting.named_parameters()]

    optimizer = torch.optim.SGD(params, lr=args.base_lr * hvd.size(), momentum=0.9, weight_decay=1e-4)
    optimizer = hvd.DistributedOptimizer(optimizer, named_parameters=named)
    scheduler = torch.optim.lr_scheduler.PolynomialLR(optimizer, total_iters=args.epochs, power=0.9)
    scaler = torch.cuda.amp.GradScaler(enabled=args.amp)

    hvd.broadcast_parameters(model.state_dict(), root_rank=0)
    hvd.broadcast_parameters(weighting.state_dict(), root_rank=0)
    hvd.broadcast_optimizer_state(optimizer, root_rank=0)

    trainer = Trainer(model, weighting, optimizer, scheduler, scaler, device, args.out)
    best_miou = -1.0
    for epoch in range(args.epochs):
        train_sampler.set_epoch(epoch)
        trainer.train_epoch(train_loader, epoch)
        metrics = evaluate(model, val_loader, device, args.num_classes)
        if hvd.rank() == 0:
            print(f"epoch {epoch}: val mIoU={metrics['miou']:.4f} depth RMSE={metrics['rmse']:.4f}")
        if metrics["miou"] > best_miou:
            best_miou = metrics["miou"]
            path = trainer.save_checkpoint(epoch, metrics)
            if hvd.rank() == 0:
                print(f"  new best, saved {path}")


if __name__ == "__main__":
    main()
