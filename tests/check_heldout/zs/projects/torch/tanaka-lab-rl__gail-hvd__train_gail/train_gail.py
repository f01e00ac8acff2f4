# Adversarial imitation (GAIL-style, off-policy variant) with Horovod.
# usage: horovodrun -np 4 python train_gail.py --expert data/reacher_expert.npz
import argparse
import json
import os
import time

import torch
import torch.nn.functional as F
import horovod.torch as hvd
from torch.utils.data import DataLoader, DistributedSampler

from gail.agents import Discriminator, Policy, build_optimizers
from gail.buffer import load_expert
from gail.evaluate import rollout_success

DEFAULTS = dict(pi_lr=1e-4, d_lr=3e-4, batch=256, epochs=30, bc_weight=1.0, adv_weight=0.1,
                obs_dim=11, act_dim=3, eval_episodes=64, save_dir="checkpoints")

parser = argparse.ArgumentParser()
parser.add_argument("--expert", default="data/reacher_expert.npz")
parser.add_argument("--config", default=None, help="json file overriding DEFAULTS")
parser.add_argument("--fake", type=int, default=0, help="use N fake transitions (debug)")
args = parser.parse_args()

cfg = dict(DEFAULTS)
if args.config:
    with open(args.config) as f:
        cfg.update(json.load(f))

hvd.init()
torch.manual_seed(42)
if torch.cuda.is_available():
    torch.cuda.set_device(hvd.local_rank())
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")

data = load_expert(args.expert, cfg["obs_dim"], cfg["act_dim"], n_fake=args.fake)
sampler = DistributedSampler(data, num_replicas=hvd.size(), rank=hvd.rank(), shuffle=True)
loader = DataLoader(data, batch_size=cfg["batch"], sampler=sampler, drop_last=True)

policy = Policy(cfg["obs_dim"], cfg["act_dim"]).to(device)
disc = Discriminator(cfg["obs_dim"], cfg["act_dim"]).to(device)
pi_opt, d_opt = build_optimizers(policy, disc, cfg)

for m in (policy, disc):
    hvd.broadcast_parameters(m.state_dict(), root_rank=0)
hvd.broadcast_optimizer_state(pi_opt, root_rank=0)
hvd.broadcast_optimizer_state(d_opt, root_rank=0)

# every rank rolls out its own slice of the evaluation episodes
my_eval_eps = list(range(hvd.rank(), cfg["eval_episodes"], hvd.size()))

for epoch in range(cfg["epochs"]):
    sampler.set_epoch(epoch)
    t0 = time.time()
    for obs, act in loader:
        obs, act = obs.to(device), act.to(device)
        # discriminator: expert pairs -> 1, policy pairs -> 0
        with torch.no_grad():
            pi_act = policy(obs)
        d_loss = F.binary_cross_entropy_with_logits(disc(obs, act), torch.ones(len(obs), device=device)) + \
            F.binary_cross_entropy_with_logits(disc(obs, pi_act), torch.zeros(len(obs), device=device))
        d_opt.zero_grad()
        d_loss.backward()
        d_opt.step()

        # policy: behaviour cloning + fool the discriminator
        disc.requires_grad_(False)
        pred = policy(obs)
        adv = F.binary_cross_entropy_with_logits(disc(obs, pred), torch.ones(len(obs), device=device))
        pi_loss = cfg["bc_weight"] * F.mse_loss(pred, act) + cfg["adv_weight"] * adv
        pi_opt.zero_grad()
        pi_loss.backward()
        pi_opt.step()
        disc.requires_grad_(True)

    success = rollout_success(policy, my_eval_eps, cfg["obs_dim"], cfg["act_dim"], device)
    success = hvd.allreduce(torch.tensor(success), op=hvd.Sum, name="success").item()
    if hvd.rank() == 0:
        print(f"[epoch {epoch:03d}] d_loss={d_loss.item():.3f} pi_loss={pi_loss.item():.3f} "
              f"success={success:.2%} ({time.time() - t0:.1f}s)")
        os.makedirs(cfg["save_dir"], exist_ok=True)
        torch.save({"policy": policy.state_dict(), "disc": disc.state_dict(), "epoch": epoch, "cfg": cfg},
                   os.path.join(cfg["save_dir"], f"gail_{epoch:03d}.pt"))
