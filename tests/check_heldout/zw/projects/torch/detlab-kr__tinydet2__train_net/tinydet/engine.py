import logging
import os

import torch
import torch.nn.functional as F
import torchvision
import horovod.torch as hvd

from . import comm

logger = logging.getLogger("tinydet2")


def launch(main_func, args=()):
    comm.init_distributed()
    return main_func(*args)


class hooks:
    class EvalHook:
        def __init__(self, period, eval_function):
            self.period, self.eval_function = period, eval_function

        def after_step(self, trainer):
            next_iter = trainer.iter + 1
            if next_iter % self.period == 0 or next_iter == trainer.max_iter:
                results = self.eval_function()
                logger.info("iter {}: {}".format(next_iter, results))
                comm.synchronize()

    class PeriodicCheckpointer:
        def __init__(self, period, max_iter):
            self.period, self.max_iter = period, max_iter

        def after_step(self, trainer):
            next_iter = trainer.iter + 1
            if comm.is_main_process() and (next_iter % self.period == 0 or next_iter == self.max_iter):
                trainer.save("model_{:07d}".format(trainer.iter))


class DefaultTrainer:
    def __init__(self, cfg):
        self.cfg = cfg
        self.model = self.build_model(cfg)
        self.optimizer = self.build_optimizer(cfg, self.model)
        self.scheduler = torch.optim.lr_scheduler.LambdaLR(self.optimizer, self._lr_lambda)
        self.data_loader = self.build_train_loader(cfg)
        self.iter, self.start_iter, self.max_iter = 0, 0, cfg.SOLVER.MAX_ITER
        self._hooks = [hooks.PeriodicCheckpointer(cfg.SOLVER.CHECKPOINT_PERIOD, self.max_iter)]

    def _lr_lambda(self, it):
        warmup = min(1.0, (it + 1) / self.cfg.SOLVER.WARMUP_ITERS)
        return warmup * self.cfg.SOLVER.GAMMA ** sum(it >= s for s in self.cfg.SOLVER.STEPS)

    @classmethod
    def build_model(cls, cfg):
        model = getattr(torchvision.models, cfg.MODEL.ARCH)(num_classes=cfg.MODEL.NUM_CLASSES)
        return model.to(cfg.MODEL.DEVICE if torch.cuda.is_available() else "cpu")

    @staticmethod
    def load_weights(model, path):
        model.load_state_dict(torch.load(path, map_location="cpu")["model"])

    def register_hooks(self, hs):
        self._hooks.extend(hs)

    def resume_or_load(self, resume=True):
        last = os.path.join(self.cfg.OUTPUT_DIR, "last_checkpoint")
        if resume and os.path.exists(last):
            with open(last) as f:
                ckpt = torch.load(os.path.join(self.cfg.OUTPUT_DIR, f.read().strip()), map_location="cpu")
            self.model.load_state_dict(ckpt["model"])
            self.optimizer.load_state_dict(ckpt["optimizer"])
            self.scheduler.load_state_dict(ckpt["scheduler"])
            self.start_iter = ckpt["iteration"] + 1
        elif self.cfg.MODEL.WEIGHTS:
            self.load_weights(self.model, self.cfg.MODEL.WEIGHTS)
        hvd.broadcast_parameters(self.model.state_dict(), root_rank=0)
        hvd.broadcast_optimizer_state(self.optimizer, root_rank=0)

    def save(self, name):
        os.makedirs(self.cfg.OUTPUT_DIR, exist_ok=True)
        torch.save({"model": self.model.state_dict(), "optimizer": self.optimizer.state_dict(),
                    "scheduler": self.scheduler.state_dict(), "iteration": self.iter},
                   os.path.join(self.cfg.OUTPUT_DIR, name + ".pth"))
        with open(os.path.join(self.cfg.OUTPUT_DIR, "last_checkpoint"), "w") as f:
            f.write(name + ".pth")

    def train(self):
        device = next(self.model.parameters()).device
        self.model.train()
        data_iter = iter(self.data_loader)
        for self.iter in range(self.start_iter, self.max_iter):
            images, targets = next(data_iter)
            loss = F.cross_entropy(self.model(images.to(device)), targets.to(device))
            self.optimizer.zero_grad()
            loss.backward()
            self.optimizer.step()
            self.scheduler.step()
            if comm.is_main_process() and self.iter % 20 == 0:
                logger.info("iter: {}  loss: {:.4f}  lr: {:.5f}".format(self.iter, loss.item(), self.scheduler.get_last_lr()[0]))
            for h in self._hooks:
                h.after_step(self)

    @classmethod
    def test(cls, cfg, model):
        loader = cls.build_test_loader(cfg)
        device = next(model.parameters()).device
        was_training = model.training
        model.eval()
        correct = total = 0
        with torch.no_grad():
            for images, targets in loader:
                correct += (model(images.to(device)).argmax(1).cpu() == targets).sum().item()
                total += targets.numel()
        model.train(was_training)
        parts = comm.all_gather((correct, total))
        return {"top1": 100.0 * sum(c for c, _ in parts) / max(1, sum(t for _, t in parts))}
