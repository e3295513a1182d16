#!/usr/bin/env python3
"""The recovery table from fits' reports: each held-out figure's error, per twin, and its
median across twins; then each twin's median over its held-out figures.

    python3 benches/recovery-table.py A.fit.json B.fit.json ...

Medians are upper medians (of an even count, the higher middle one), as `sim fit` reports
them. Prints Markdown. Only held-out figures are in it: what a twin was fitted to is not a
prediction.

Fits run with `--reference PRESET` (the hidden preset) also score it, with its own values of
the searched keys on the start's others; then each miss (over 10%) is marked with whose it
is: (s) the search's, the reference fits better and predicts within 10%; (o) the space's,
the same but the reference has values no point of the space sets (`outside`), so no search
of it could find it; (t) the fitted tests', they prefer the twin though the reference
predicts within 10%; (k) the keys', the reference misses too, so keys not searched matter.
"""

import collections
import json
import statistics
import sys
from pathlib import Path


def main(paths):
    fits = {Path(p).name.removesuffix(".fit.json"): json.load(open(p)) for p in paths}
    errors = {}  # figure -> {twin: error}
    references = {}  # figure -> {twin: the reference's error}
    causes = {}  # (figure, twin) -> s, t or k
    for name, fit in fits.items():
        for row in fit["held_out"]:
            errors.setdefault(row["figure"], {})[name] = row["twin_error"]
            if row.get("reference_error") is not None:
                references.setdefault(row["figure"], {})[name] = row["reference_error"]
            cause = whose(fit, row)
            if cause:
                causes[row["figure"], name] = cause
    names = list(fits)
    print("| held-out figure | " + " | ".join(names) + " | median |")
    print("|---" * (len(names) + 2) + "|")
    for figure in sorted(errors):
        by = errors[figure]
        cells = [f"{100 * by[n]:.1f}%" + (f" ({causes[figure, n]})" if (figure, n) in causes else "")
                 if n in by else "" for n in names]
        print(f"| {figure} | " + " | ".join(cells) + f" | {100 * statistics.median_high(by.values()):.1f}% |")
    medians = [statistics.median_high(r["twin_error"] for r in fits[n]["held_out"]) for n in names]
    print("| **median over the twin's figures** | "
          + " | ".join(f"**{100 * m:.1f}%**" for m in medians) + " | |")
    start = [statistics.median_high(r["start_error"] for r in fits[n]["held_out"]) for n in names]
    starts = {fits[n]["from"] for n in names}
    label = f"`{starts.pop()}`" if len(starts) == 1 else "each fit's `--from`"
    print(f"| the start's ({label}), for comparison | "
          + " | ".join(f"{100 * m:.1f}%" for m in start) + " | |")
    if any(fit.get("reference") for fit in fits.values()):
        ref = [fits[n].get("reference") for n in names]
        print("| loss: the twin's / the reference's | "
              + " | ".join(f"{fits[n]['loss_twin']:.3f} / " + (f"{r['loss']:.3f}" if r["loss"] is not None else "refused")
                           if r else "" for n, r in zip(names, ref))
              + " | |")
        print("| the reference's median over the figures | "
              + " | ".join(f"{100 * statistics.median_high(x['reference_error'] for x in fits[n]['held_out']):.1f}%"
                           if r and r["loss"] is not None else "" for n, r in zip(names, ref)) + " | |")
    within = sum(1 for by in errors.values() if statistics.median_high(by.values()) <= 0.10)
    print(f"\n{within} of {len(errors)} figures have a median error across twins of 10% or less.")
    if references:
        met = sum(1 for by in references.values() if statistics.median_high(by.values()) <= 0.10)
        print(f"The references (each hidden drive as the space holds it): {met} of {len(references)}.")
    if causes:
        count = collections.Counter(causes.values())
        print(f"Misses over 10%: {count['s']} the search's (s), {count['o']} the space's (o), "
              f"{count['t']} the fitted tests' (t), {count['k']} the keys' not searched (k). "
              "The keys not searched that make each reference another drive than the start, "
              "and the searched keys whose reference values the space does not hold:\n")
    unsearched(fits)
    spreads(fits)
    agreement(fits)
    left_open(fits)


def unsearched(fits):
    """The keys not searched that make each reference another drive than the start."""
    for name, fit in fits.items():
        keys = (fit.get("reference") or {}).get("unsearched") or []
        if keys:
            print(f"- {name}: " + ", ".join(f"`{u['key']}` {u['reference']} (start {u['start']})" for u in keys))
        beyond = (fit.get("reference") or {}).get("outside") or []
        if beyond:
            print(f"- {name}, outside the space: " + "; ".join(f"`{o['key']}` {o['reference']} ({o['why']})" for o in beyond))


def whose(fit, row, line=0.10):
    """Whose miss a held-out figure over `line` is, when the fit scored a reference."""
    reference, ref_error = fit.get("reference"), row.get("reference_error")
    if row["twin_error"] <= line or not reference or reference["loss"] is None or ref_error is None:
        return None
    if ref_error > line:
        return "k"
    if reference["loss"] >= fit["loss_twin"]:
        return "t"
    return "o" if reference.get("outside") else "s"


def spreads(fits):
    """What the prices leave open: the held-out sequential-write watts, the twin's and the
    range that prices fitting as well give, and whether the hidden drive's is in it."""
    rows = []
    for name, fit in fits.items():
        held = {r["figure"]: r for r in fit["held_out"]}
        for s in fit.get("price_spreads", []):
            if s["figure"] != "power.seq_write_w":
                continue
            r = held[s["figure"]]
            inside = s["low"] <= r["drive"] <= s["high"]
            rows.append(f"| {name} | {r['drive']:.2f} | {r['twin']:.2f} ({100 * r['twin_error']:.1f}%) "
                        f"| {s['low']:.2f} to {s['high']:.2f} | {'yes' if inside else 'no'} |")
    if rows:
        print("\n| twin | power.seq_write_w, drive | twin | prices fitting as well | drive's in it |")
        print("|---|---|---|---|---|")
        print("\n".join(rows))


def agreement(fits):
    """With several seeds (`sim fit --seeds`): the held-out figures by how far apart the
    seeds' twins put them, and how many of each the twin meets within 10%."""
    rows = [r for fit in fits.values() for r in fit["held_out"] if r.get("spread") is not None]
    if not rows:
        return
    print("\n| the seeds' twins' spread | held-out figures | the twin within 10% | median error |")
    print("|---|---|---|---|")
    for low, high, label in [(-1, 0.05, "within 5%"), (0.05, 0.2, "5% to 20%"), (0.2, float("inf"), "over 20%")]:
        part = [r["twin_error"] for r in rows if low < r["spread"] <= high]
        if part:
            print(f"| {label} | {len(part)} | {sum(e <= 0.10 for e in part)} "
                  f"| {100 * statistics.median_high(part):.1f}% |")


def left_open(fits):
    """The held-out figures by whether a key the fit did not search, moved on the twin,
    opens them (more than 5%), and with several seeds whether the twins agree (within 5%),
    and how many of each the twin meets within 10%."""
    rows = [r for fit in fits.values() for r in fit["held_out"]]
    if not any(fit.get("alternatives") for fit in fits.values()):
        return
    seeds = any(r.get("spread") is not None for r in rows)
    print("\n| the keys not searched | held-out figures | the twin within 10% | median error |")
    print("|---|---|---|---|")
    for agree in ([True, False] if seeds else [None]):
        for opened in [False, True]:
            part = [r["twin_error"] for r in rows
                    if (r.get("open") is not None) == opened
                    and (agree is None or (r.get("spread") is not None and (r["spread"] <= 0.05) == agree))]
            label = ("a key opens it" if opened else "no key opens it")
            if agree is not None:
                label = ("the twins agree, " if agree else "the twins disagree, ") + label
            if part:
                print(f"| {label} | {len(part)} | {sum(e <= 0.10 for e in part)} "
                      f"| {100 * statistics.median_high(part):.1f}% |")


if __name__ == "__main__":
    main(sys.argv[1:])
