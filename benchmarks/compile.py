"""The solver's first-use compile and its load from numba's cache, per kernel. Numbers, not a test.

Each measurement is a fresh process with a fresh NUMBA_CACHE_DIR: `solver.warm_up(False)` (the
boxes and spheres a bake compiles first), then `warm_up()` (every other shape), then a second
process loading both from that cache. CPU seconds (time.process_time). Per kernel: its own
compile time (typing, lowering and LLVM of that function, the kernels it calls excluded; numba's
"numba:compile" events nest) and how many specializations it got. The table lists the kernels
that took longest.

    .venv/bin/python benchmarks/compile.py [--top 25] [--opt 0..3]
"""

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def child(stage: str) -> None:
    """Compile or load (stage "compile" or "load") in this process; print JSON on stdout. (A
    solver source edited in between makes the load compile everything again: numba's cache and
    solver.fresh_cache check the sources.)"""
    started = time.process_time()
    from numba.core import event

    own: dict[str, float] = defaultdict(float)
    llvm: dict[str, float] = defaultdict(float)
    stack: list[list] = []  # [name, started, time of the compiles nested in it]
    held: list[float] = []  # when the (reentrant) LLVM lock was taken, outermost first

    class SelfTime(event.Listener):
        """Each compile's time less the compiles nested in it, by kernel."""

        def on_start(self, ev: event.Event) -> None:
            if ev.kind == "numba:compile":
                dispatcher = ev.data["dispatcher"]
                stack.append([f"{dispatcher.py_func.__module__}.{dispatcher.__name__}",
                              time.process_time(), 0.0])
            else:
                held.append(time.process_time())

        def on_end(self, ev: event.Event) -> None:
            now = time.process_time()
            if ev.kind == "numba:compile":
                name, begun, nested = stack.pop()[:3]
                own[name] += now - begun - nested
                if stack:
                    stack[-1][2] += now - begun
            else:
                begun = held.pop()
                if not held:
                    llvm[stack[-1][0] if stack else "(outside compiles)"] += now - begun

    listener = SelfTime()
    event.register("numba:compile", listener)
    event.register("numba:llvm_lock", listener)
    sys.path.insert(0, str(ROOT))
    import solver
    from solver import warmup

    imported = time.process_time()
    warmup.warm_up(False)
    boxes = time.process_time()
    in_boxes = dict(own)
    warmup.warm_up(True)
    done = time.process_time()
    signatures, linked = {}, {}
    for module in list(sys.modules.values()):
        if getattr(module, "__name__", "").startswith("solver."):
            for value in vars(module).values():
                if hasattr(value, "signatures") and hasattr(value, "py_func"):
                    name = f"{value.py_func.__module__}.{value.__name__}"
                    signatures[name] = [str(s) for s in value.signatures]
                    linked[name] = sum(_functions(c.library) for c in value.overloads.values())
    print(json.dumps({"import": imported - started, "boxes": boxes - imported,
                      "others": done - boxes, "own": own, "llvm": llvm,
                      "signatures": signatures, "linked": linked, "in_boxes": in_boxes,
                      "solver": solver.__file__}))


def _functions(library) -> int:
    """Functions defined in a compiled kernel's final module: its own and every callee's that
    numba linked in and LLVM optimised and emitted again (0 when loaded from the cache)."""
    module = getattr(library, "_final_module", None)
    return 0 if module is None else sum(not f.is_declaration for f in module.functions)


def run(stage: str, cache: str, opt: str | None) -> dict:
    env = dict(os.environ, NUMBA_CACHE_DIR=cache)
    if opt is not None:
        env["NUMBA_OPT"] = opt
    out = subprocess.run([sys.executable, __file__, "--child", stage], env=env, check=True,
                         capture_output=True, text=True).stdout
    return json.loads(out.splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--top", type=int, default=25)
    parser.add_argument("--opt", help="NUMBA_OPT for both processes (default: numba's own)")
    parser.add_argument("--json", help="also write both processes' numbers to this file")
    parser.add_argument("--cache", help="an empty folder to compile into and keep (default: a "
                        "temporary one)")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(args.child)
        return
    with tempfile.TemporaryDirectory() as temporary:
        cache = args.cache or temporary
        first = run("compile", cache, args.opt)
        if args.json:
            Path(args.json).write_text(json.dumps({"first": first}))
        again = run("load", cache, args.opt)
    if args.json:
        Path(args.json).write_text(json.dumps({"first": first, "again": again}))
    load = ", ".join(f"{x:.1f}" for x in os.getloadavg())
    print(f"{first['solver']}, NUMBA_OPT={args.opt or 'default'}; CPU seconds, one fresh "
          f"process each; load average {load}\n")
    print("| | import | warm_up(False) | other shapes | all |\n|---|---|---|---|---|")
    for label, numbers in (("first use", first), ("from the cache", again)):
        print(f"| {label} | {numbers['import']:.2f} | {numbers['boxes']:.2f} | "
              f"{numbers['others']:.2f} | {numbers['boxes'] + numbers['others']:.2f} |")
    own, llvm, signatures, linked = (first[k] for k in ("own", "llvm", "signatures", "linked"))
    print(f"\n{len(signatures)} kernels, {sum(map(len, signatures.values()))} specializations; "
          f"compile self time {sum(own.values()):.1f} s, of which LLVM "
          f"{sum(llvm.values()):.1f} s\n")
    print(f"functions in the kernels' linked modules: {sum(linked.values())}\n")
    print("| kernel | self s (boxes and spheres) | LLVM s | specializations | linked functions |\n"
          "|---|---|---|---|---|")
    for name in sorted(own, key=own.get, reverse=True)[:args.top]:
        print(f"| {name} | {own[name]:.2f} ({first['in_boxes'].get(name, 0.0):.2f}) | "
              f"{llvm.get(name, 0.0):.2f} | "
              f"{len(signatures.get(name, []))} | {linked.get(name, '')} |")


if __name__ == "__main__":
    main()
