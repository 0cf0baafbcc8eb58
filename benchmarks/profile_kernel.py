"""Where the compiled join kernel spends its time, per function, with Linux ``perf``.

Numba's compiled code has no symbols that ``perf`` can see, so this script compiles the kernel
afresh (in a temporary cache: code loaded from numba's cache carries no function list), asks
numba's code libraries of the join loop and of its refits (``refit_step``: the age-aware kinds'
fit, HAZARD's guard and the memory re-sorted) where each function starts, and writes a perf map
(``/tmp/perf-<pid>.map``, with each function's size from the compiled object's symbol table) before feeding the policy's
join operator the workload ``--repeats`` times under ``perf record``. It prints, per compiled
function, its samples, their share of the kernel's, and the share of its samples on ``push``
instructions: in numba's calling convention every array argument is passed as 7 + 2 x ndim
words, so pushes are mostly what the calls with many array arguments cost (an upper bound on what
removing the calls would save, see docs/studies/beyond.md). numba's reference counting
(``NRT_incref``, ``NRT_decref``) is listed too: a helper inlined into a function compiled with it
counts every array it binds in and out. Its first line per policy also says how many arrivals the policy admitted to memory (its admissions and evictions).

    python benchmarks/profile_kernel.py --policy hazard --policy prob   # flights January, M = 200
    python benchmarks/profile_kernel.py --policy hazard --workload zipf --repeats 100
    python benchmarks/profile_kernel.py --policy hazard --group dest   # HAZARD by destination

Needs ``perf``, ``objdump`` and ``nm`` (Debian: ``linux-perf``, ``binutils``) and permission to sample one's own
process (``/proc/sys/kernel/perf_event_paranoid`` at most 2). The first run of each policy
compiles the kernel (about a minute); the samples of that stay outside the compiled code.
"""

from __future__ import annotations

import argparse
import collections
import ctypes
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))


def short_name(symbol: str) -> str:
    """``kernel.process`` for numba's mangled ``_ZN8shedding6online6kernel7processB3v22...``; other
    symbols (numba's ``NRT_incref``) as they are."""
    if not symbol.startswith("_ZN"):
        return symbol
    parts = []
    rest = symbol[len("_ZN"):]
    while rest and rest[0].isdigit():
        n = int(re.match(r"\d+", rest).group())
        digits = len(str(n))
        parts.append(rest[digits:digits + n])
        rest = rest[digits + n:]
    name = ".".join(parts[-2:])
    return name + (" [literal]" if "Literal" in rest else "")


def workload(name: str):
    from bench_beyond import flights_workload, zipf_workload

    if name == "flights":
        return flights_workload(1), 200
    return zipf_workload(seed=2), 400


def child(args) -> None:
    """Compile, write the perf map and the code of every kernel function, then run the feeds."""
    from shedding import jit

    jit.SHIPPED = Path(args.code) / "no-shipped-engines"  # compile here: shipped code carries no function list
    from shedding.online import JoinOperator, OnlineEstimator
    from shedding.online import kernel as K

    wl, memory = workload(args.workload)
    policy = args.policy[0]
    groups = None
    if args.group:
        from shedding.online.simulator import payload_groups

        groups = payload_groups(wl, args.group)

    def run(record: bool = False):
        op = JoinOperator(wl.window, memory, policy, warmup=wl.warmup, estimator=OnlineEstimator(), record=record)
        return op.feed(wl.side, wl.time, wl.key, groups)

    refused = int((run(record=True).departures[:, 2] == 0).sum())  # this first feed compiles the kernel
    out = Path(args.code)
    functions = []
    for cres in [*K.process.overloads.values(), *K.refit_step.overloads.values()]:  # the loop, and its refits
        library = cres.library
        (out / "kernel.o").write_bytes(library._get_compiled_object())
        sizes = {}  # from the object file's symbol table
        for line in subprocess.run(["nm", "-S", str(out / "kernel.o")], capture_output=True, text=True,
                                   check=True).stdout.splitlines():
            fields = line.split()
            if len(fields) == 4:
                sizes[fields[3]] = int(fields[1], 16)
        for function in library._final_module.functions:
            if not function.is_declaration and function.name in sizes:
                address = library.get_pointer_to_function(function.name)
                if address:
                    functions.append((address, sizes[function.name], function.name))
    if not functions:
        sys.exit("no compiled functions found: the kernel came from a cache")
    with open(f"/tmp/perf-{os.getpid()}.map", "w") as fh:
        for address, size, name in sorted(functions):
            fh.write(f"{address:x} {size:x} {name}\n")
            if name.startswith(("_ZN8shedding", "NRT_")):  # ours, and numba's reference counting
                (out / f"{address:x}.bin").write_bytes(ctypes.string_at(address, size))
                (out / f"{address:x}.name").write_text(name)
    started = time.perf_counter()
    for _ in range(args.repeats):
        run()
    seconds = (time.perf_counter() - started) / args.repeats
    (out / "timing.json").write_text(json.dumps({"us_per_arrival": 1e6 * seconds / len(wl), "arrivals": len(wl),
                                                 "admitted": len(wl) - refused}))


def table(code: Path, data: Path) -> list[dict]:
    """Samples per kernel function and the share on push instructions."""
    ips = collections.Counter(int(x, 16) for x in subprocess.run(
        ["perf", "script", "-i", str(data), "-F", "ip"], capture_output=True, text=True, check=True).stdout.split())
    rows = []
    for path in sorted(code.glob("*.bin")):
        address = int(path.stem, 16)
        asm = subprocess.run(["objdump", "-D", "-b", "binary", "-mi386:x86-64", f"--adjust-vma={address:#x}",
                              str(path)], capture_output=True, text=True, check=True).stdout
        samples = pushes = 0
        for line in asm.splitlines():
            m = re.match(r"\s*([0-9a-f]+):\s+(?:[0-9a-f]{2} )+\s*(\S+)", line)
            if m:
                hits = ips.get(int(m.group(1), 16), 0)
                samples += hits
                pushes += hits if m.group(2) == "push" else 0
        if samples:
            rows.append({"function": short_name(path.with_suffix(".name").read_text()), "samples": samples,
                         "pushes": pushes})
    total = sum(r["samples"] for r in rows)
    for r in rows:
        r["share"] = round(r["samples"] / total, 3)
        r["push_share"] = round(r["pushes"] / r["samples"], 2)
    return sorted(rows, key=lambda r: -r["samples"])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--policy", action="append", help="policy to profile (repeatable; default hazard)")
    parser.add_argument("--workload", choices=["flights", "zipf"], default="flights")
    parser.add_argument("--group", help="HAZARD's group column of the flights (dest)")
    parser.add_argument("--repeats", type=int, default=60, help="feeds of the whole workload under perf")
    parser.add_argument("--frequency", type=int, default=4000, help="perf's samples per second")
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--code", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(args)
        return
    from shedding.online.policies import POLICIES

    unknown = [p for p in args.policy or [] if p not in POLICIES]
    if unknown:
        parser.error(f"unknown policy {unknown[0]!r}; choose one of {', '.join(POLICIES)}")
    if args.repeats < 1 or args.frequency < 1:
        parser.error("--repeats and --frequency must be at least 1")
    for tool in ("perf", "objdump", "nm"):
        if shutil.which(tool) is None:
            parser.error(f"{tool} is not installed; install it (Debian: linux-perf, binutils) to profile the kernel")
    for policy in args.policy or ["hazard"]:
        with tempfile.TemporaryDirectory() as tmp:
            code = Path(tmp) / "code"
            code.mkdir()
            env = dict(os.environ, NUMBA_CACHE_DIR=str(Path(tmp) / "numba"))
            data = Path(tmp) / "perf.data"
            subprocess.run(["perf", "record", "-q", "-F", str(args.frequency), "-o", str(data), sys.executable,
                            __file__, "--child", "--code", str(code), "--policy", policy, "--workload",
                            args.workload, "--repeats", str(args.repeats), *(["--group", args.group] if args.group
                                                                                  else [])], env=env, check=True,
                           stdout=subprocess.DEVNULL)
            timing = json.loads((code / "timing.json").read_text())
            rows = table(code, data)
            total = sum(r["samples"] for r in rows)
            pushes = sum(r["pushes"] for r in rows)
            print(json.dumps({"policy": policy, "workload": args.workload, "group": args.group, "repeats": args.repeats,
                              "us_per_arrival_under_perf": round(timing["us_per_arrival"], 3),
                              "arrivals": timing["arrivals"], "admitted": timing["admitted"],
                              "kernel_samples": total, "push_share": round(pushes / max(total, 1), 3)}))
            for r in rows:
                if r["share"] >= 0.005:
                    print(json.dumps({"policy": policy, **r}))


if __name__ == "__main__":
    main()
