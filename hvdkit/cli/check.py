"""`hvdkit check`: is a Horovod conversion right? The eight steps, each ok / missing / wrong / cannot tell.

    hvdkit check train.py                          # static pass: reads the script, imports nothing
    hvdkit check train.py --run -- --epochs 1      # and runs it on 2 ranks for 3 optimizer steps
    hvdkit check train.py --json
    hvdkit check jobs/train.py --root .            # the project's root (default: found from the script up)
    hvdkit check train_hvd.py --against train.py -n 2 --steps 4 -- --epochs 1   # trains what train.py trains?

Exit status 0 only when no step is missing or wrong (docs/check.md says what each verdict means) and, with
--against, the two scripts train the same model at the LR the global batch asks for; 2 for bad input or a
pair that cannot be compared; 3 when hvdkit itself fails (a bug: please report it with the script).
"""
import argparse
import json
import os
import sys

from hvdkit.cli import UsageError
from hvdkit.common.errors import HvdkitError


class InternalError(HvdkitError):
    """hvdkit's own bug: exit 3, one line naming where, so that no script is taken for judged."""
    status = 3


def register(sub):
    p = sub.add_parser("check", help="step-by-step verdict on a Horovod training script (static; --run to observe it)",
                       description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("script", help="the training script")
    _options(p)
    p.add_argument("script_args", nargs=argparse.REMAINDER, help="-- then the script's own arguments")
    p.set_defaults(run=run)


def _options(p):
    p.add_argument("--run", dest="observe", action="store_true",
                   help="also launch it under mpirun and observe the first steps")
    p.add_argument("--against", metavar="SEQ.py", help="also run the sequential script it was converted from and "
                   "compare what the two train, step by step (ARGS after -- go to both)")
    p.add_argument("-n", "--ranks", type=int, default=2, help="ranks for --run and --against")
    p.add_argument("--steps", type=int, help="optimizer steps to observe with --run (default 3) or to compare with "
                   "--against (default 4); at least 2")
    p.add_argument("--timeout", type=float, default=600, help="seconds allowed for each launch")
    p.add_argument("--json", action="store_true", help="machine-readable report")
    p.add_argument("--root", metavar="DIR", help="the project's root folder, whose modules the script imports "
                   "(default: the nearest folder above it with .git, pyproject.toml, setup.py or setup.cfg)")


def run(args):
    from hvdkit.check import report, static
    script_args = list(args.script_args)
    # Options written after the script (`check train.py --run -- --epochs 1`) arrive here: parse them.
    cut = script_args.index("--") if "--" in script_args else len(script_args)
    if cut:
        late = argparse.ArgumentParser(prog="hvdkit check", add_help=False)
        _options(late)
        late.parse_args(script_args[:cut], namespace=args)
    script_args = script_args[cut + 1:]
    launches = args.observe or args.against
    if args.ranks < 2 and launches:
        raise UsageError(f"-n {args.ranks}: use at least 2 ranks, or the ranks cannot be compared")
    if args.steps is not None and args.steps < 2 and launches:
        raise UsageError(f"--steps {args.steps}: observe at least 2 steps (the first one may hold the broadcast)")
    if args.against and not os.path.isfile(args.against):
        raise UsageError(f"--against {args.against}: no such file: give the sequential script HVD.py was "
                         "converted from")
    try:
        findings, notes, info = static.analyze(args.script, root=args.root)  # CheckInputError: main() prints it
    except HvdkitError:
        raise
    except Exception as exc:  # noqa: BLE001 - a bug of the static pass's core (a rule's bug degrades one step)
        if os.environ.get(static.STRICT):
            raise
        raise InternalError(f"{args.script}: the static pass stopped on an internal error "
                            f"({static.raised_at(exc)}); please report it with the script") from None
    observed = None
    if args.observe:
        from hvdkit.check.run import dynamic
        try:
            result = dynamic.run(args.script, script_args, args.ranks, args.steps or 3, args.timeout)
        except dynamic.RunSetupError as exc:
            raise UsageError(str(exc)) from None
        findings = report.merge(findings, result.findings)
        observed = result.as_dict()
    against = None
    if args.against:
        from hvdkit.check.against.run import against as compare_pair
        from hvdkit.check.run.dynamic import RunSetupError
        try:
            against = compare_pair(args.script, args.against, script_args, args.ranks, args.steps or 4, args.timeout)
        except RunSetupError as exc:
            raise UsageError(str(exc)) from None
    if args.json:
        print(json.dumps(report.as_json(args.script, findings, notes, info, observed, against), indent=2))
    else:
        print(report.text(args.script, findings, notes, observed, info=info, against=against))
    if against is not None and against.get("reason"):  # no verdict (exit 2): the line says what to change
        print(f"hvdkit check: --against: {against['reason']}", file=sys.stderr)
    return report.exit_status(findings, observed, against, info.get("crash"))
