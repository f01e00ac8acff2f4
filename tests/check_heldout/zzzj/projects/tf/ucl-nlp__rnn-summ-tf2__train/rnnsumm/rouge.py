def rouge2(hyp, ref):
    hb = {tuple(hyp[i:i + 2]) for i in range(len(hyp) - 1)}
    rb = {tuple(ref[i:i + 2]) for i in range(len(ref) - 1)}
    if not hb or not rb:
        return 0.0
    ov = len(hb & rb)
    return 0.0 if ov == 0 else 2 * ov / (len(hb) + len(rb))
