import math
from collections import Counter


def ngram_stats(hyp, ref, max_n=4):
    """[hyp_len, ref_len, match_1..4, total_1..4] for one sentence pair."""
    stats = [len(hyp), len(ref)]
    for n in range(1, max_n + 1):
        h = Counter(tuple(hyp[i:i + n]) for i in range(len(hyp) - n + 1))
        r = Counter(tuple(ref[i:i + n]) for i in range(len(ref) - n + 1))
        stats.append(sum((h & r).values()))
        stats.append(max(len(hyp) - n + 1, 0))
    return stats


def bleu_from_stats(s):
    hyp_len, ref_len = s[0], s[1]
    if min(s[2:]) == 0:
        return 0.0
    log_p = sum(math.log(s[2 + 2 * k] / s[3 + 2 * k]) for k in range(4)) / 4
    bp = min(0.0, 1 - ref_len / hyp_len)
    return 100 * math.exp(log_p + bp)
