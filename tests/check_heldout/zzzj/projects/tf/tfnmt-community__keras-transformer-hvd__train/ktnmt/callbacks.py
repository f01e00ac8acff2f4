import math
from collections import Counter

import numpy as np
import keras


def corpus_bleu(hyps, refs):
    logp = 0.0
    for n in range(1, 5):
        m = t = 0
        for h, r in zip(hyps, refs):
            hc = Counter(tuple(h[i:i + n]) for i in range(len(h) - n + 1))
            rc = Counter(tuple(r[i:i + n]) for i in range(len(r) - n + 1))
            m += sum((hc & rc).values())
            t += max(len(h) - n + 1, 0)
        if m == 0:
            return 0.0
        logp += math.log(m / t) / 4
    hl, rl = sum(map(len, hyps)), sum(map(len, refs))
    return 100 * math.exp(logp + min(0.0, 1 - rl / max(hl, 1)))


class GreedyBleu(keras.callbacks.Callback):
    """Greedy-decodes the whole dev set at the end of each epoch and logs BLEU."""

    def __init__(self, dev_pairs, max_len=64):
        super().__init__()
        self.dev, self.max_len = dev_pairs, max_len

    def on_epoch_end(self, epoch, logs=None):
        hyps, refs = [], []
        for src, ref in self.dev:
            ys = np.ones((1, 1), dtype="int64")
            for _ in range(self.max_len):
                nxt = int(np.argmax(self.model.predict_on_batch([src[None], ys])[0, -1]))
                if nxt == 2:
                    break
                ys = np.concatenate([ys, [[nxt]]], 1)
            hyps.append(ys[0, 1:].tolist())
            refs.append(ref)
        bleu = corpus_bleu(hyps, refs)
        if logs is not None:
            logs["dev_bleu"] = bleu
        print(f"epoch {epoch + 1}: dev BLEU {bleu:.2f}")
