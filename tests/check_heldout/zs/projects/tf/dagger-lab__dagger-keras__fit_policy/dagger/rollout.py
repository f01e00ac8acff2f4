import numpy as np

from .expert import LineFollowEnv, scripted_expert


def collect(policy, seeds, beta):
    """Run the mixture (beta * expert + (1-beta) * policy); return states and expert labels."""
    states, labels, wins = [], [], 0
    for seed in seeds:
        env = LineFollowEnv(seed)
        s, done, info = env.reset(), False, {}
        rng = np.random.default_rng(seed)
        while not done:
            a_exp = scripted_expert(s)
            states.append(s)
            labels.append(a_exp)
            if policy is None or rng.random() < beta:
                a = a_exp
            else:
                a = float(policy(s[None], training=False)[0, 0])
            s, done, info = env.step(a)
        wins += int(info["success"])
    return np.stack(states), np.array(labels), wins / len(seeds)
