import os

import numpy as np
import torch
import horovod.torch as hvd


def linear_eps(step, start=1.0, end=0.05, decay_steps=20000):
    return max(end, start - (start - end) * step / decay_steps)


def save_checkpoint(agent, optimizer, step, out_dir):
    # one writer per node
    if hvd.local_rank() != 0:
        return
    os.makedirs(out_dir, exist_ok=True)
    torch.save({"q": agent.q.state_dict(), "target": agent.target.state_dict(),
                "optimizer": optimizer.state_dict(), "step": step}, os.path.join(out_dir, "dqn_latest.pt"))


def evaluate(agent, env, episodes=5):
    """Greedy return on this worker, combined over workers."""
    rets = []
    for _ in range(episodes):
        o, done, ret = env.reset(), False, 0.0
        while not done:
            o, r, done = env.step(agent.act(o, eps=0.0))
            ret += r
        rets.append(ret)
    return hvd.allreduce(torch.tensor(float(np.mean(rets))), op=hvd.Sum, name="eval_return").item()
