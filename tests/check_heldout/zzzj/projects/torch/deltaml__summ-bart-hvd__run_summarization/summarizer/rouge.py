def _lcs(a, b):
    prev = [0] * (len(b) + 1)
    for x in a:
        cur = [0]
        for j, y in enumerate(b):
            cur.append(prev[j] + 1 if x == y else max(prev[j + 1], cur[j]))
        prev = cur
    return prev[-1]


def rouge_l(hyp, ref):
    h, r = hyp.split(), ref.split()
    if not h or not r:
        return 0.0
    lcs = _lcs(h, r)
    p, rec = lcs / len(h), lcs / len(r)
    return 0.0 if lcs == 0 else 2 * p * rec / (p + rec)
