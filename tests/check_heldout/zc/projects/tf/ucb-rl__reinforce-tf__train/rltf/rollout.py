import numpy as np

from .policy import sample_action


def collect(env, policy, n_steps, gamma, rng):
    """Exactly n_steps transitions (episodes are cut and restarted), with discounted returns-to-go."""
    obs_buf, act_buf, ret_buf, ep_lens = [], [], [], []
    rews, obs, t = [], env.reset(), 0
    for i in range(n_steps):
        a = sample_action(policy, obs, rng)
        nxt, r, done = env.step(a)
        obs_buf.append(obs)
        act_buf.append(a)
        rews.append(r)
        t += 1
        if done or t == 200 or i == n_steps - 1:
            g, out = 0.0, []
            for r_ in reversed(rews):
                g = r_ + gamma * g
                out.append(g)
            ret_buf.extend(out[::-1])
            ep_lens.append(t)
            rews, obs, t = [], env.reset(), 0
        else:
            obs = nxt
    ret = np.asarray(ret_buf, np.float32)
    return (np.asarray(obs_buf, np.float32), np.asarray(act_buf, np.int32), ret,
            float(np.sum(ep_lens)), float(len(ep_lens)))
