import os

import numpy as np
import torch
import torch.nn as nn
import horovod.torch as hvd

from .dataset import from_path
from .model import WaveGradLite


class WaveGradLearner:
    def __init__(self, model_dir, model, dataset, optimizer, params, device, fp16=False, is_master=True):
        self.model_dir = model_dir
        self.model = model
        self.dataset = dataset
        self.optimizer = optimizer
        self.params = params
        self.device = device
        self.is_master = is_master
        self.autocast = torch.autocast(device_type=device.type, enabled=fp16)
        self.scaler = torch.cuda.amp.GradScaler(enabled=fp16)
        self.step = 0
        beta = np.linspace(params.noise_schedule_start, params.noise_schedule_end, params.noise_steps)
        noise_level = np.cumprod(1 - beta) ** 0.5
        self.noise_level = torch.tensor(np.concatenate([[1.0], noise_level]).astype(np.float32))
        self.loss_fn = nn.L1Loss()

    def state_dict(self):
        return {"step": self.step, "model": self.model.state_dict(),
                "optimizer": self.optimizer.state_dict(), "params": dict(self.params)}

    def load_state_dict(self, state):
        self.model.load_state_dict(state["model"])
        self.optimizer.load_state_dict(state["optimizer"])
        self.step = state["step"]

    def save_to_checkpoint(self, filename="weights"):
        os.makedirs(self.model_dir, exist_ok=True)
        save_name = f"{self.model_dir}/{filename}-{self.step}.pt"
        link_name = f"{self.model_dir}/{filename}.pt"
        torch.save(self.state_dict(), save_name)
        if os.path.islink(link_name) or os.path.exists(link_name):
            os.unlink(link_name)
        os.symlink(os.path.basename(save_name), link_name)

    def restore_from_checkpoint(self, filename="weights"):
        try:
            checkpoint = torch.load(f"{self.model_dir}/{filename}.pt", map_location="cpu")
            self.load_state_dict(checkpoint)
            return True
        except FileNotFoundError:
            return False

    def train(self, max_steps=None):
        running, n = torch.zeros(2), 0
        while True:
            for features in self.dataset:
                if max_steps is not None and self.step >= max_steps:
                    return
                features = {k: v.to(self.device) for k, v in features.items()}
                loss = self.train_step(features)
                if torch.isnan(loss).any():
                    raise RuntimeError(f"Detected NaN loss at step {self.step}.")
                running += torch.tensor([loss.item() * len(features["audio"]), len(features["audio"])])
                if self.step % self.params.log_every == 0:
                    tot = hvd.allreduce(running, op=hvd.Sum, name="loss_sum")
                    if self.is_master:
                        print(f"step {self.step} L1 {float(tot[0] / tot[1]):.5f}", flush=True)
                    running.zero_()
                if self.is_master and self.step % self.params.save_every == 0:
                    self.save_to_checkpoint()
                self.step += 1

    def train_step(self, features):
        for param in self.model.parameters():
            param.grad = None
        audio = features["audio"]
        spectrogram = features["spectrogram"]
        N = audio.shape[0]
        with self.autocast:
            s = torch.randint(1, self.params.noise_steps + 1, [N])
            l_a, l_b = self.noise_level[s - 1], self.noise_level[s]
            noise_scale = (l_a + torch.rand(N) * (l_b - l_a)).unsqueeze(1).to(self.device)
            noise = torch.randn_like(audio)
            noisy_audio = noise_scale * audio + (1.0 - noise_scale ** 2) ** 0.5 * noise
            predicted = self.model(noisy_audio, spectrogram, noise_scale.squeeze(1))
            loss = self.loss_fn(noise, predicted)
        self.scaler.scale(loss).backward()
        self.optimizer.synchronize()
        self.scaler.unscale_(self.optimizer)
        nn.utils.clip_grad_norm_(self.model.parameters(), self.params.max_grad_norm)
        with self.optimizer.skip_synchronize():
            self.scaler.step(self.optimizer)
        self.scaler.update()
        return loss


def train_worker(args, params):
    hvd.init()
    if torch.cuda.is_available():
        torch.cuda.set_device(hvd.local_rank())
        device = torch.device("cuda", hvd.local_rank())
    else:
        device = torch.device("cpu")
    torch.manual_seed(hvd.rank())

    dataset = from_path(args.data_dirs, params, hvd.rank(), hvd.size())
    model = WaveGradLite(params).to(device)
    opt = torch.optim.Adam(model.parameters(), lr=params.learning_rate * hvd.size())
    opt = hvd.DistributedOptimizer(opt, named_parameters=model.named_parameters())

    learner = WaveGradLearner(args.model_dir, model, dataset, opt, params, device,
                              fp16=args.fp16 and device.type == "cuda", is_master=hvd.rank() == 0)
    if hvd.rank() == 0:
        learner.restore_from_checkpoint()
    hvd.broadcast_parameters(model.state_dict(), root_rank=0)
    hvd.broadcast_optimizer_state(opt, root_rank=0)
    learner.step = hvd.broadcast_object(learner.step, root_rank=0, name="step")
    learner.train(max_steps=args.max_steps)
