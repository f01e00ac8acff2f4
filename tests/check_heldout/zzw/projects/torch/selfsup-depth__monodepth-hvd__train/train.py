# Self-supervised monocular depth (monodepth2-style, mono only) with Horovod data parallelism.
#   horovodrun -np 4 python train.py --data_path data/kitti_npz --model_name mono_hvd
import json
import os
import time

import torch
import torch.nn.functional as F
from torch.utils.data import DataLoader
from torch.utils.data.distributed import DistributedSampler

import horovod.torch as hvd

from md.kitti import KITTITriplets
from md.layers import BackprojectDepth, Project3D, disp_to_depth, photometric_error, smoothness
from md.networks import DepthNet, PoseNet
from md.options import MonodepthOptions


def compute_depth_errors(gt, pred):
    """AbsRel, SqRel, RMSE, RMSE(log), a1 as sums over the valid pixels of one batch."""
    thresh = torch.max(gt / pred, pred / gt)
    a1 = (thresh < 1.25).float().sum()
    rmse = ((gt - pred) ** 2).sum()
    rmse_log = ((torch.log(gt) - torch.log(pred)) ** 2).sum()
    abs_rel = (torch.abs(gt - pred) / gt).sum()
    sq_rel = ((gt - pred) ** 2 / gt).sum()
    return torch.stack([abs_rel, sq_rel, rmse, rmse_log, a1])


class Trainer:
    def __init__(self, options):
        self.opt = options
        self.log_path = os.path.join(self.opt.log_dir, self.opt.model_name)
        self.device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
        if torch.cuda.is_available():
            torch.cuda.set_device(hvd.local_rank())

        self.depth = DepthNet().to(self.device)
        self.pose = PoseNet().to(self.device)
        params = list(self.depth.parameters()) + list(self.pose.parameters())
        self.model_optimizer = torch.optim.Adam(params, self.opt.learning_rate)
        self.model_lr_scheduler = torch.optim.lr_scheduler.StepLR(self.model_optimizer,
                                                                  self.opt.scheduler_step_size, 0.1)

        hvd.broadcast_parameters(self.depth.parameters(), root_rank=0)
        hvd.broadcast_parameters(self.pose.parameters(), root_rank=0)
        hvd.broadcast_optimizer_state(self.model_optimizer, root_rank=0)
        named = [("depth." + n, p) for n, p in self.depth.named_parameters()] + \
                [("pose." + n, p) for n, p in self.pose.named_parameters()]
        self.model_optimizer = hvd.DistributedOptimizer(self.model_optimizer, named_parameters=named)

        h, w = self.opt.height, self.opt.width
        train_set = KITTITriplets(self.opt.data_path, "train", h, w)
        val_set = KITTITriplets(self.opt.data_path, "val", h, w)
        self.train_sampler = DistributedSampler(train_set, num_replicas=hvd.size(), rank=hvd.rank())
        val_sampler = DistributedSampler(val_set, num_replicas=hvd.size(), rank=hvd.rank(), shuffle=False)
        self.train_loader = DataLoader(train_set, self.opt.batch_size, sampler=self.train_sampler,
                                       num_workers=self.opt.num_workers, pin_memory=True, drop_last=True)
        self.val_loader = DataLoader(val_set, self.opt.batch_size, sampler=val_sampler,
                                     num_workers=self.opt.num_workers)
        self.backproject = BackprojectDepth(h, w).to(self.device)
        self.project = Project3D(h, w).to(self.device)
        if hvd.rank() == 0:
            os.makedirs(self.log_path, exist_ok=True)
            with open(os.path.join(self.log_path, "opt.json"), "w") as f:
                json.dump(vars(self.opt), f, indent=2)

    def process_batch(self, inputs):
        inputs = {k: v.to(self.device) for k, v in inputs.items()}
        target = inputs[("color", 0)]
        disp = self.depth(target)
        _, depth = disp_to_depth(disp, self.opt.min_depth, self.opt.max_depth)
        cam = self.backproject(depth, inputs["inv_K"])
        errors = []
        for fi in (-1, 1):
            src = inputs[("color", fi)]
            T = self.pose(src, target) if fi < 0 else self.pose(target, src)
            grid = self.project(cam, inputs["K"], T if fi > 0 else torch.linalg.inv(T))
            warped = F.grid_sample(src, grid, padding_mode="border", align_corners=True)
            errors.append(photometric_error(warped, target))
        reproj = torch.min(torch.cat(errors, 1), 1)[0].mean()
        mean_disp = disp / (disp.mean((2, 3), True) + 1e-7)
        return reproj + self.opt.disparity_smoothness * smoothness(mean_disp, target)

    def val(self):
        self.depth.eval()
        sums, count = torch.zeros(5, dtype=torch.float64), torch.zeros(1, dtype=torch.float64)
        with torch.no_grad():
            for inputs in self.val_loader:
                gt = inputs["depth_gt"].to(self.device)
                _, pred = disp_to_depth(self.depth(inputs[("color", 0)].to(self.device)),
                                        self.opt.min_depth, self.opt.max_depth)
                mask = gt > 0
                pred = pred * torch.median(gt[mask]) / torch.median(pred[mask])
                sums += compute_depth_errors(gt[mask], pred[mask].clamp(1e-3, 80)).double().cpu()
                count += mask.sum().item()
        sums = hvd.allreduce(sums, op=hvd.Sum, name="val_err")
        count = hvd.allreduce(count, op=hvd.Sum, name="val_cnt")
        m = (sums / count).tolist()
        self.depth.train()
        return {"abs_rel": m[0], "sq_rel": m[1], "rmse": m[2] ** 0.5, "rmse_log": m[3] ** 0.5, "a1": m[4]}

    def save_model(self, epoch):
        folder = os.path.join(self.log_path, "models", f"weights_{epoch}")
        os.makedirs(folder, exist_ok=True)
        torch.save(self.depth.state_dict(), os.path.join(folder, "depth.pth"))
        torch.save(self.pose.state_dict(), os.path.join(folder, "pose.pth"))
        torch.save(self.model_optimizer.state_dict(), os.path.join(folder, "adam.pth"))

    def train(self):
        for epoch in range(self.opt.num_epochs):
            self.train_sampler.set_epoch(epoch)
            start = time.time()
            for batch_idx, inputs in enumerate(self.train_loader):
                loss = self.process_batch(inputs)
                self.model_optimizer.zero_grad()
                loss.backward()
                self.model_optimizer.step()
                if hvd.rank() == 0 and batch_idx % 250 == 0:
                    print(f"epoch {epoch:>3} | batch {batch_idx:>6} | loss {loss.item():.5f} | "
                          f"{time.time() - start:.1f}s", flush=True)
            self.model_lr_scheduler.step()
            metrics = self.val()
            if hvd.rank() == 0:
                print("val " + "  ".join(f"{k} {v:.4f}" for k, v in metrics.items()), flush=True)
                if (epoch + 1) % self.opt.save_frequency == 0:
                    self.save_model(epoch)


if __name__ == "__main__":
    hvd.init()
    opts = MonodepthOptions().parse()
    Trainer(opts).train()
