#!/usr/bin/env python3
"""Fails when a file includes a header of a colo module its module does not
declare as a direct dependency.

colo's modules are the directories src/<dir>/ (plus tools/); their headers
are included as "<dir>/name.h", and core's public API as "colo/name.h". The
build lists every module target in build/modules.txt (one line a target,
tab-separated: directory, target, the libraries it links directly, its
sources). A file may include headers of its own module, and of the modules
of the libraries its target links directly; a module reached only through
another's dependencies does not count, so each edge in the code is an edge
in the build.

Which target a file belongs to: a source file listed by a target belongs to
that target; a header to the target that lists the source of the same stem
(sim_scorer.h to colo_predict_sim), or else to every target of its directory
(it may include what any of them declares).

Usage: check_module_includes.py MODULES_TXT SOURCE_ROOT
Exit status: 0 when every include is declared, 1 when one is not (each
printed as file:line: what was included, what the module declares), 2 on a
malformed table.
"""
import os
import re
import sys

INCLUDE = re.compile(r'^\s*#\s*include\s+"([A-Za-z0-9_]+)/[^"]+"')
CORE_PREFIX = "colo"  # include/colo/*.h: the public API of colo_core


def read_table(path):
    """dir -> {target: (set of linked targets, set of sources)}."""
    modules = {}
    with open(path, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            line = line.rstrip("\n")
            if not line:
                continue
            fields = line.split("\t")
            if len(fields) != 4:
                sys.stderr.write(f"{path}:{n}: expected 4 tab-separated fields "
                                 f"(dir, target, links, sources), got {len(fields)}\n")
                sys.exit(2)
            d, target, links, sources = fields
            modules.setdefault(d, {})[target] = (set(links.split()), set(sources.split()))
    return modules


def module_of_target(modules):
    owner = {}
    for d, targets in modules.items():
        for t in targets:
            owner[t] = d
    return owner


def allowed_modules(targets, owner):
    """The module directories that a file built into `targets` may include."""
    allowed = set()
    for _, (links, _) in targets:
        for lib in links:
            if lib in owner:
                allowed.add(owner[lib])
    if "core" in allowed:
        allowed.add(CORE_PREFIX)
    return allowed


def targets_of_file(rel, d, modules):
    targets = modules[d]
    owning = [(t, v) for t, v in targets.items() if rel in v[1]]
    if owning:
        return owning
    stem = os.path.splitext(rel)[0]
    owning = [(t, v) for t, v in targets.items()
              if any(os.path.splitext(s)[0] == stem for s in v[1])]
    return owning or list(targets.items())


def module_dir(d):
    return "tools" if d == "tools" else os.path.join("src", d)


def check(modules, root):
    owner = module_of_target(modules)
    known = set(modules) | {CORE_PREFIX}
    problems = []
    for d in sorted(modules):
        top = os.path.join(root, module_dir(d))
        for dirpath, _, files in os.walk(top):
            for name in sorted(files):
                if not name.endswith((".h", ".cc")):
                    continue
                path = os.path.join(dirpath, name)
                rel = os.path.relpath(path, root)
                targets = targets_of_file(rel, d, modules)
                allowed = allowed_modules(targets, owner) | {d}
                if d == "core":
                    allowed.add(CORE_PREFIX)
                with open(path, encoding="utf-8", errors="replace") as f:
                    for n, line in enumerate(f, 1):
                        m = INCLUDE.match(line)
                        if not m or m.group(1) not in known or m.group(1) in allowed:
                            continue
                        used = "core" if m.group(1) == CORE_PREFIX else m.group(1)
                        names = ", ".join(sorted(t for t, _ in targets))
                        declared = " ".join(sorted(allowed - {d, CORE_PREFIX})) or "nothing"
                        problems.append(
                            f"{rel}:{n}: includes a header of module '{used}' "
                            f"({line.strip()}), which {names} does not link directly "
                            f"(it declares: {declared}); add the library to its "
                            f"DEPS in {module_dir(d)}/CMakeLists.txt or drop the include")
    return problems


def main(argv):
    if len(argv) != 3:
        sys.stderr.write("usage: check_module_includes.py MODULES_TXT SOURCE_ROOT\n")
        return 2
    table, root = argv[1], argv[2]
    if not os.path.isfile(table):
        sys.stderr.write(f"{table}: no module table (configure the build first)\n")
        return 2
    modules = read_table(table)
    problems = check(modules, root)
    for p in problems:
        print(p)
    if problems:
        print(f"{len(problems)} undeclared module include(s)")
        return 1
    print(f"module includes: {sum(len(t) for t in modules.values())} targets in "
          f"{len(modules)} modules, every include declared")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
