"""Readable text for a timeline summary and for two summaries side by side."""


def ms(us):
    return "-" if us is None else f"{us / 1000:.3f}"


def pct(share):
    return "-" if share is None else f"{100 * share:.1f}%"


def size(nbytes):
    if nbytes is None:
        return "-"
    for unit in ("B", "kB", "MB", "GB"):
        if abs(nbytes) < 1000 or unit == "GB":
            return f"{nbytes:.0f} {unit}" if unit == "B" else f"{nbytes:.1f} {unit}"
        nbytes /= 1000


def table(header, rows, indent="  ", left=1):
    """The first `left` columns left-aligned (names), the others right-aligned (numbers)."""
    cells = [list(map(str, header))] + [list(map(str, r)) for r in rows]
    widths = [max(len(c[i]) for c in cells) for i in range(len(header))]
    lines = []
    for c in cells:
        parts = [v.ljust(w) if i < left else v.rjust(w) for i, (v, w) in enumerate(zip(c, widths))]
        lines.append((indent + "  ".join(parts)).rstrip())
    return lines


def summary_text(d):
    t, c = d["trace"], d["communication"]
    out = [f"Horovod timeline {t['path']} ({size(t['bytes'])}, {d['records']} records"
           f"{'' if t['closed'] else ', not closed'})",
           f"wall time {ms(d['wall_us'])} ms from the first to the last event",
           f"communication: {ms(c['busy_us'])} ms with a collective in progress ({pct(c['busy_share'])} of wall), "
           f"{ms(c['wire_us'])} ms in transfers ({pct(c['wire_share'])}), "
           f"{ms(c['negotiation_us'])} ms negotiating ({pct(c['negotiation_share'])})", ""]
    out.append("collectives (tensor ms: summed over tensors; wall ms: time any tensor was in it)")
    out += table(["kind", "count", "tensor ms", "wall ms", "mean ms", "bytes"],
                 [[n, s["count"], ms(s["tensor_us"]), ms(s["wall_us"]), ms(s["mean_us"]), size(s["bytes"])]
                  for n, s in d["collectives"].items()] or [["(none)", "", "", "", "", ""]])
    out += ["", "phases"]
    phases = {**d["negotiations"], **d["activities"]}
    out += table(["phase", "kind", "count", "tensor ms", "wall ms", "mean ms"],
                 [[n, s["kind"], s["count"], ms(s["tensor_us"]), ms(s["wall_us"]), ms(s["mean_us"])]
                  for n, s in phases.items()] or [["(none)", "", "", "", "", ""]], left=2)
    tensors = d["tensors"]
    for key, title in (("top_by_time", "by time in operations"), ("top_by_bytes", "by bytes reduced")):
        out += ["", f"top {len(tensors[key])} of {tensors['count']} tensors {title}"]
        out += table(["tensor", "ops", "op ms", "negotiate ms", "bytes", "shape", "dtype"],
                     [[x["name"], x["operations"], ms(x["op_us"]), ms(x["negotiation_us"]), size(x["bytes"] or None),
                       x["shape"] or "-", x["dtype"] or "-"] for x in tensors[key]] or [["(none)"] + [""] * 6])
    out += ["", "fusion (tensors per collective: the N back-to-back begin events of one transfer)"]
    for name, f in d["fusion"].items():
        hist = " ".join(f"{k}x{v}" for k, v in f["histogram"].items())
        out.append(f"  {name}: {f['collectives']} collectives carried {f['tensors']} tensors "
                   f"(mean {f['mean_tensors']:.2f}, max {f['max_tensors']}, {f['fused']} fused), "
                   f"mean {size(f['mean_bytes'])} per collective; tensors x collectives: {hist}")
    if not d["fusion"]:
        out.append("  (no transfers)")
    n = d["negotiation"]
    out += ["", f"negotiation stragglers: {n['with_rank_ticks']} of {n['count']} negotiations have per-rank ready "
                "ticks" + (" (the others were response-cache hits)" if n["with_rank_ticks"] < n["count"] else "")]
    if n["ranks"]:
        out += table(["rank", "ticks", "last", "mean late ms", "max late ms"],
                     [[r, v["ticks"], v["last"], ms(v["mean_lateness_us"]), ms(v["max_lateness_us"])]
                      for r, v in n["ranks"].items()])
        last = n["most_often_last"]
        out.append(f"  most often last ready: rank {last} ({n['ranks'][last]['last']} times); " if last is not None
                   else "  no rank was last by a clear margin; ")
        out[-1] += f"{n['ties']} negotiations had the last two ticks within {n['gap_us']} us (no straggler)"
    if n["count"] and n["with_rank_ticks"] < n["count"] / 2:
        out.append("  (for ticks on every step, record with HOROVOD_CACHE_CAPACITY=0: it turns off the response cache)")
    cy = d["cycles"]
    out.append("")
    if cy:
        out.append(f"cycles: {cy['count']} CYCLE_START marks, {cy['busy']} cycles started a collective; cycle ms "
                   f"mean {ms(cy['mean_us'])}  p50 {ms(cy['p50_us'])}  p95 {ms(cy['p95_us'])}  max {ms(cy['max_us'])}")
    else:
        out.append("cycles: no CYCLE_START marks (record with `hvdkit timeline capture --mark-cycles`, "
                   "mark_cycles=True or HOROVOD_TIMELINE_MARK_CYCLES=1)")
    if t["dropped_tail_chars"] or d["open_at_end"] or d["unmatched_ends"] or d["abandoned"]:
        out.append(f"cut-off trace: ignored an incomplete last record of {t['dropped_tail_chars']} characters; "
                   f"{d['open_at_end']} intervals still open at the end; {d['unmatched_ends']} end events without a "
                   f"begin; {d['abandoned']} intervals never ended")
    return "\n".join(out)


def compare_rows(a, b):
    """(label, value A, value B, shown A, shown B) for the numbers worth comparing."""
    rows = [("wall ms", a["wall_us"], b["wall_us"], ms),
            ("collective in progress ms", a["communication"]["busy_us"], b["communication"]["busy_us"], ms),
            ("  share of wall", a["communication"]["busy_share"], b["communication"]["busy_share"], pct),
            ("in transfers ms", a["communication"]["wire_us"], b["communication"]["wire_us"], ms),
            ("negotiating ms", a["communication"]["negotiation_us"], b["communication"]["negotiation_us"], ms),
            ("records", a["records"], b["records"], str)]
    for group in ("collectives", "negotiations", "activities"):
        for name in sorted(set(a[group]) | set(b[group])):
            sa, sb = a[group].get(name, {}), b[group].get(name, {})
            rows.append((f"{name} count", sa.get("count"), sb.get("count"), str))
            rows.append((f"{name} wall ms", sa.get("wall_us"), sb.get("wall_us"), ms))
            rows.append((f"{name} mean ms", sa.get("mean_us"), sb.get("mean_us"), ms))
            if group == "collectives":
                rows.append((f"{name} bytes", sa.get("bytes"), sb.get("bytes"), size))
    for name in sorted(set(a["fusion"]) | set(b["fusion"])):
        fa, fb = a["fusion"].get(name, {}), b["fusion"].get(name, {})
        rows.append((f"{name} tensors/collective", fa.get("mean_tensors"), fb.get("mean_tensors"),
                     lambda v: f"{v:.2f}"))
    ca, cb = a["cycles"] or {}, b["cycles"] or {}
    rows.append(("cycle mean ms", ca.get("mean_us"), cb.get("mean_us"), ms))
    na, nb = a["negotiation"], b["negotiation"]
    rows.append(("most often last rank", na["most_often_last"], nb["most_often_last"], str))
    return [(label, va, vb, "-" if va is None else show(va), "-" if vb is None else show(vb))
            for label, va, vb, show in rows]


def compare_text(a, b):
    out = [f"A: {a['trace']['path']}", f"B: {b['trace']['path']}", ""]
    rows = []
    for label, va, vb, sa, sb in compare_rows(a, b):
        ratio = f"{vb / va:.2f}x" if isinstance(va, (int, float)) and isinstance(vb, (int, float)) and va else ""
        rows.append([label, sa, sb, ratio])
    out += table(["", "A", "B", "B/A"], rows, indent="")
    return "\n".join(out)
