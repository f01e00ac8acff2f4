"""From what both runs saw to the report's `against` entry: equivalent or not, and which step explains it.

Every figure comes from the two runs' files (recorded.py, the replaying run's replay.json); the evidence
is kept as one line each, in the order the report prints them:
- 6 (broadcast): the ranks never held the same weights (and optimizer state) before a step, or only from
  a later step on than the first; the tensors that differ are named. A broadcast after step 1 (Horovod's
  TF 2 and Keras idiom) is right: step 1 itself is then not compared, the comparison starts at step 2.
- 5 (optimizer): ranks that started a step with the same weights and optimizer state ended it with
  different ones (each applied its own gradient); or every update is c x the sequential one (c = N:
  gradients summed) and that makes the effective LR wrong.
- 4 (lr): the effective LR ratio, Horovod / sequential (the LR ratio times c), is not the global batch's
  ratio (the ranks' batches together / the sequential batch: N when each rank takes the sequential
  batch size, 1 when a fixed global batch is split). op=Sum with an unscaled LR is then right.
- 3 (shard): samples.py's overlap and volume faults.
- a divergence none of these explains: "unexplained", with the tensor, the step and the size.
"""
import os

from hvdkit.check.against import samples, tolerance

CLOSE = 1e-3       # relative: two LR ratios (LRs are float32 variables), a scale c and 1
SCALE_SPREAD = 0.01  # relative: the scale c must be the same at every compared step to explain anything


def empty(seq_script, ranks, reason=None):
    return {"sequential": seq_script, "ranks": ranks, "equivalent": None, "explained_by": [],
            "first_divergence": None, "lr_ratio": None, "steps_compared": 0, "reason": reason,
            "batch_ratio": None, "grad_scale": None, "largest": None, "evidence": []}


def unrecorded(hvd, launched, script, steps):
    """Why the Horovod run cannot be compared (one line), or None."""
    name = os.path.basename(script)
    crashed = sorted(((r, rec) for r, rec in hvd.runs.items() if rec.crash),
                     key=lambda item: ("shut down" in item[1].crash["error"] or "TimeLimit" in item[1].crash["error"],
                                       item[0]))
    if crashed:
        r, rec = crashed[0]
        c = rec.crash
        where = f"line {c['line']}: " if c.get("line") else ""
        return (f"{name} crashed on rank {r} before its step {rec.steps + 1} ({where}{c['error']}): make it run "
                f"(`hvdkit check {name} --run` shows where), then compare")
    if launched.timed_out:
        return (f"{name} did not reach {steps} optimizer steps within the time limit: raise --timeout, or "
                "give it smaller arguments after --")
    if len(hvd.runs) < hvd.ranks or len(hvd.records) < hvd.ranks:
        last = (launched.log.strip().splitlines() or ["no output"])[-1][:200]
        return (f"only {min(len(hvd.runs), len(hvd.records))} of {hvd.ranks} ranks of {name} reported (exit status "
                f"{launched.status}: {last})")
    if hvd.steps() == 0:
        return (f"{name} took no optimizer step: nothing to compare (the hooks count torch.optim and Keras "
                "optimizer steps)")
    if hvd.train_sig is None:
        return (f"{name}'s training batches were not seen: its data must come through a torch DataLoader, a "
                "tf.data data set iterated in the script, or Keras fit")
    return None


def verdict(hvd, seq_script, ranks, reason=None, seq=None, alt=None, rows=None):
    """The `against` entry from the Horovod run, the two replaying runs (run.Replay) and compare.steps' rows."""
    out = empty(seq_script, ranks, reason)
    name = os.path.basename(seq_script)
    out["reason"] = reason or _unreplayed(seq, alt, name)
    if out["reason"]:
        return out
    replay, steps = seq.out, hvd.steps()
    align = hvd.alignment(steps)
    compared = [k for k in sorted(rows or {}) if k >= (align or 1) and not replay["steps"][str(k)]["late"]]
    if not compared:
        out["reason"] = (f"{name} took no optimizer step: nothing to compare" if not rows else
                         f"no step could be compared: the Horovod ranks held the same weights only from step {align} "
                         f"on, and {name} ran {len(rows)} step(s): raise --steps")
        return out
    sizes = {k: _union_size(hvd, k) for k in compared}
    names = hvd.root.get("names") or replay.get("names") or []
    divergence, largest, scale = _divergence(rows, compared, sizes, names)
    lr_ratio, basis = _lr_ratio(hvd, replay, compared)
    batch_ratio = _batch_ratio(replay, compared[0], sizes[compared[0]])
    evidence, explained = [], set()
    _ranks(hvd, steps, align, evidence, explained)
    _lr(lr_ratio, basis, batch_ratio, scale, evidence, explained)
    for fault in samples.judge(hvd, compared[-1], replay["own"]["yields"]):
        explained.add(3)
        evidence.append("3: " + fault.what)
    if divergence and not explained & {5, 6}:
        evidence.append(f"unexplained: {divergence['tensor']} differs by {divergence['max_abs']:.3g} after step "
                        f"{divergence['step']} (tolerance {divergence['tolerance']:.3g}); none of steps 3-6 "
                        "explains it")
    if align == 2:
        evidence.append("the ranks held different weights before step 1 and the same after it (a broadcast after the "
                        "first step): compared from step 2")
    off = sorted(set(replay.get("layers_off") or []) | set(hvd.root.get("layers_off") or []))
    noise, xla = [x for x in off if not x.startswith("XLA")], [x[5:-1] for x in off if x.startswith("XLA (")]
    if noise:
        evidence.append("made the identity in both runs (their random masks cannot be replayed): " + ", ".join(noise))
    if xla:
        evidence.append("compiled without XLA in both runs (its fused kernels round otherwise than the sequential "
                        "run's): " + ", ".join(xla))
    out.update(steps_compared=len(compared), first_divergence=divergence, largest=largest, grad_scale=scale,
               lr_ratio=lr_ratio, batch_ratio=batch_ratio, explained_by=sorted(explained), evidence=evidence,
               equivalent=divergence is None and not explained & {3, 5, 6})
    return out


def _lr(lr_ratio, basis, batch_ratio, scale, evidence, explained):
    """Step 4 (or 5, when the updates are c x the sequential ones) from the effective LR ratio."""
    if lr_ratio is None or batch_ratio is None:
        return
    effective = lr_ratio * (scale or 1.0)
    if abs(effective / batch_ratio - 1) <= CLOSE:
        if scale:
            evidence.append(f"updates are {scale:.3g} x the sequential ones at the same LR (gradients summed): with "
                            f"the LR ratio {lr_ratio:.3g} that is the effective LR the global batch asks for")
        return
    if scale:
        explained.add(5)
        evidence.append(f"5: every update is {scale:.3g} x the sequential one at the same LR (gradients summed over "
                        f"the ranks, not averaged?): with the LR ratio {lr_ratio:.3g} the effective LR is "
                        f"{effective:.3g} x the sequential, the global batch {batch_ratio:.3g} x")
    else:
        explained.add(4)
        evidence.append(f"4: LR ratio (Horovod / sequential, {basis}) {lr_ratio:.3g}, global batch ratio "
                        f"{batch_ratio:.3g}: scale the LR by the global batch (hvd.size() when each rank takes the "
                        "sequential batch size)")


def _unreplayed(seq, alt, name):
    """Why the replaying runs cannot be compared (one line), or None."""
    for run in (seq, alt):
        if run.out is not None and run.out.get("reason"):
            return run.out["reason"]
        if run.out is not None and run.out.get("opt_state_loaded") is False:
            return (f"{name}'s optimizer state does not match the Horovod script's (another optimizer, or other "
                    "variables), so it cannot start step 2 where rank 0 did: use the same optimizer in both")
    for run in (seq, alt):
        c = run.record.crash if run.record is not None else None
        if c:
            where = f"line {c['line']}: " if c.get("line") else ""
            return f"{name} crashed ({where}{c['error']}): make it run alone first, with the same arguments"
        if run.out is None:
            return f"{name} did not run under the hooks (no record of the replaying run)"
    return None


def _union_size(hvd, k):
    total = 0
    for r in range(hvd.ranks):
        t = hvd.training(r, k)
        if t:
            total += hvd.yields(r, k)[t[-1]]["n"] or 0
    return total


def _divergence(steps, compared, sizes, names):
    """(first divergence or None, the largest |diff| / tolerance seen, the scale c when it explains all)."""
    first, largest = _first(steps, compared, sizes, names, scaled=False)
    scales = [steps[k]["scale"] for k in compared]
    c = sum(scales) / len(scales)
    if first is not None and abs(c - 1) > CLOSE and max(abs(s / c - 1) for s in scales) <= SCALE_SPREAD:
        again, largest_scaled = _first(steps, compared, sizes, names, scaled=True)
        if again is None:
            return None, largest_scaled, c
    return first, largest, None


def _first(steps, compared, sizes, names, scaled):
    """(the first tensor past its tolerance, the tensor closest to or furthest past it): each as
    {step, tensor, max_abs, tolerance} (the largest with its `ratio` = max_abs / tolerance)."""
    first, largest = None, None
    for k in compared:
        rows = steps[k]["tensors"] + ([steps[k]["loss"]] if steps[k].get("loss") else [])
        for i, row in enumerate(rows):
            err = row["max_abs_scaled"] if scaled else row["max_abs"]
            tol = tolerance.bound(row, sizes[k], scaled)
            ratio = err / tol if tol > 0 else (0.0 if err == 0 else float("inf"))
            name = "the loss" if i == len(steps[k]["tensors"]) else names[i] if i < len(names) else f"tensor {i}"
            seen = {"step": k, "tensor": name, "max_abs": err, "tolerance": tol}
            if largest is None or ratio > largest["ratio"]:
                largest = {**seen, "ratio": ratio}
            if first is None and err > tol:
                first = seen
    return first, largest


def _ranks(hvd, steps, align, evidence, explained):
    """Steps 6 and 5 from the ranks' digests, side by side."""
    if align is None or align > 2:
        first = next((k for k in range(1, steps + 1) if hvd.equal("before", k) is not None), 1)
        bad = hvd.differing("before", first) or hvd.differing("opt_before", first)
        until = f"until step {align}" if align else f"at any of the {steps} steps"
        evidence.append(f"6: the ranks did not hold the same weights {until}: {', '.join(bad[:4]) or 'optimizer state'}"
                        + (" ..." if len(bad) > 4 else "") + ": broadcast rank 0's weights before training "
                        "(or after the first step)")
        explained.add(6)
    for k in range(align or steps + 1, steps + 1):
        if hvd.equal("before", k) and hvd.equal("opt_before", k) and hvd.equal("after", k) is False:
            bad = hvd.differing("after", k)
            evidence.append(f"5: the ranks started step {k} with the same weights and optimizer state and ended it "
                            f"with different ones ({', '.join(bad[:4])}" + (" ..." if len(bad) > 4 else "")
                            + "): each applied its own gradient; average them (DistributedOptimizer / "
                            "DistributedGradientTape)")
            explained.add(5)
            return
        if k > align and hvd.equal("before", k) and not hvd.equal("opt_before", k):
            evidence.append(f"6: the ranks held different optimizer state before step {k}: broadcast it with the "
                            "weights")
            explained.add(6)
            return


def _lr_ratio(hvd, replay, compared):
    """(Horovod LR / sequential LR, how it was read)."""
    pairs = [(hvd.lr(k), replay["own"]["lr"].get(str(k))) for k in compared]
    ratios = [h[0] / s[0] for h, s in pairs if h and s and s[0]]
    if not ratios:
        return None, None
    if all(abs(r / ratios[0] - 1) <= CLOSE for r in ratios):
        return ratios[-1], "at the compared steps"
    built_h, built_s = hvd.root.get("built_lr"), replay["own"].get("built_lr")
    if built_h and built_s and built_h[0] and built_s[0]:
        return built_h[0] / built_s[0], "as configured: the Horovod LR changes over the compared steps (a warmup)"
    return ratios[-1], "at the last compared step"


def _batch_ratio(replay, k, union):
    own = [y for y in replay["own"]["yields"].get(str(k), []) + replay["own"]["yields"].get("1", []) if y.get("n")]
    return union / own[-1]["n"] if own and union else None
