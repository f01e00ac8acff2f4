import torch


@torch.no_grad()
def beam_search(model, src, beam, max_len, bos=1, eos=2):
    """Beam search for a single article (src: 1 x L)."""
    hyps = [([bos], 0.0)]
    for _ in range(max_len):
        cand = []
        for toks, score in hyps:
            if toks[-1] == eos:
                cand.append((toks, score))
                continue
            lp = model(src, torch.tensor([toks], device=src.device))[0, -1]
            top = lp.topk(beam)
            cand += [(toks + [i], score + v) for v, i in zip(top.values.tolist(), top.indices.tolist())]
        hyps = sorted(cand, key=lambda h: h[1] / len(h[0]), reverse=True)[:beam]
        if all(h[0][-1] == eos for h in hyps):
            break
    return [t for t in hyps[0][0][1:] if t != eos]


def rouge1_f(hyp, ref):
    overlap = len(set(hyp) & set(ref))
    if not hyp or not ref or overlap == 0:
        return 0.0
    p, r = overlap / len(set(hyp)), overlap / len(set(ref))
    return 2 * p * r / (p + r)
