"""Targets and sentences of a step record (benchmarks/step_bench.py), computed from its measured values
only: run on a new record, and on the committed ones when the page is written."""
from benchmarks.harness import compare_sentence

TARGETS = {"over_handwritten": 1.02, "over_baseline": 1.00}  # issue 26: hvdkit at no cost


def baseline(record):
    return record.get("baseline") or ("ddp" if record["benchmark"] == "step_torch" else "mwms")


def targets(record):
    base, out = baseline(record), {}
    for model, c in record["comparisons"].items():
        for key, ratio, target in (("over_handwritten", "hvdkit_over_handwritten", TARGETS["over_handwritten"]),
                                   (f"over_{base}", f"hvdkit_over_{base}", TARGETS["over_baseline"])):
            if c.get(ratio) is not None:
                out[f"{model}_hvdkit_{key}"] = {"target": target, "measured": c[ratio], "met": c[ratio] <= target}
        if "interleaved" in c:  # the same ratio with both steps alternated inside one process
            ratio = c["interleaved"]["hvdkit_over_handwritten"]["median"]
            out[f"{model}_hvdkit_over_handwritten_interleaved"] = {
                "target": TARGETS["over_handwritten"], "measured": ratio, "met": ratio <= TARGETS["over_handwritten"]}
    return out


def notes(record):
    base, out = baseline(record), []
    names = {"hvdkit": "hvdkit", "horovod": "hand-written Horovod", "ddp": "DDP", "mwms": "MWMS",
             "hvdkit_grouped": "hvdkit grouped"}
    for model, c in record["comparisons"].items():
        sides = {s: v["step_ms"] for s, v in c["sides"].items() if "step_ms" in v}
        line = (f"{model}: median step "
                + ", ".join(f"{names.get(s, s)} {v['median']:.1f} ms" for s, v in sides.items()) + ".")
        for other in ("horovod", base):
            if "hvdkit" in sides and other in sides:
                line += " Step time: " + compare_sentence("hvdkit", sides["hvdkit"], names[other], sides[other])
        failed = [s for s, v in c["sides"].items() if "step_ms" not in v]
        if failed:
            line += f" Failed to run: {', '.join(names.get(s, s) for s in failed)} (error in the record)."
        inter = c.get("interleaved")
        if inter:
            r = inter["hvdkit_over_handwritten"]
            line += (f" Alternated in blocks inside each of {len(r['all'])} launches, hvdkit over hand-written "
                     f"Horovod is {r['median']:.3f} (median; range {r['min']:.3f}-{r['max']:.3f}).")
            d = inter.get("max_weight_difference")
            if d is not None:
                line += " The two models ended " + ("with identical weights." if d == 0 else f"{d:.1e} apart.")
        sweep = record.get("sweep", {}).get(model)
        if sweep:
            head = sweep["headline"]["ms_per_pass"]["median"]
            best = min(sweep, key=lambda k: sweep[k]["ms_per_pass"]["median"])
            launches = len(sweep['headline']['ms_per_pass']['all'])
            line += (f" Sweep on the hvdkit side ({launches} launch(es) per setting): "
                     + ", ".join(f"{k} {v['ms_per_pass']['median']:.1f} ms per pass "
                                 f"({v['ms_per_pass']['median'] / head - 1:+.0%})"
                                 for k, v in sweep.items() if k != "headline")
                     + f", against {head:.1f} ms with the headline settings; fastest: {best}.")
        t = record.get("timeline", {}).get(model)
        if t:
            line += (f" Timeline of the hvdkit side: a collective is in progress "
                     f"{t['communication_busy_share']:.0%} of "
                     f"the wall time ({t['wire_share']:.0%} in the transfer itself)")
            fused = next(iter(t["fusion"].values()), None)
            if fused:
                line += f", {fused['collectives']} fused allreduces of {fused['mean_tensors']:.1f} tensors on average"
            if t["cycles"].get("count"):
                line += f", background cycles of {t['cycles']['mean_us'] / 1000:.1f} ms on average"
            line += "."
        out.append(line)
    env = record.get("horovod_env", record.get("headline_horovod_env"))
    if env is not None:
        out.append("Horovod sides ran with " + (" ".join(f"{k}={v}" for k, v in sorted(env.items()))
                                                 or "Horovod's default settings") + f"; {names[base]} without them. "
                   "On a CPU, hvdkit's init() adds its own allreduce defaults on the hvdkit side where these leave "
                   "them unset (hvdkit/common/context.py).")
    return out
