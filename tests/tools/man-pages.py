#!/usr/bin/env python3
# What the man pages must say, checked against the sources they document:
# every exported symbol and <trace.h> function has a page, alias pages
# resolve, NAME lines list their aliases, the required sections are there,
# SYNOPSIS prototypes are <trace.h>'s, posix-trace(1) covers the command's
# subcommands, exit codes and --help options, and posix_trace(7) every
# module parameter.  Run from the repository root by tests/tools/man.sh;
# prints one "ok"/"not ok" line per check, details as "#" lines.
import glob
import os
import re
import subprocess
import sys

MAN = "man"
# Exported but deliberately without a page of their own name.
NO_PAGE = {
    # sysconf(3) is glibc's page; the library's override of it is
    # documented in __posix_trace_sysconf(3) and posix_trace(7).
    "sysconf": "man3/__posix_trace_sysconf.3",
    # Not an interface: the inline fast path of <trace.h> reads it.
    "__posix_trace_wanted": None,
}
REQUIRED = {
    "1": ["NAME", "SYNOPSIS", "DESCRIPTION", "OPTIONS", "EXIT STATUS", "SEE ALSO"],
    "3": ["NAME", "SYNOPSIS", "DESCRIPTION", "RETURN VALUE", "ERRORS",
          "STANDARDS", "SEE ALSO"],
    "7": ["NAME", "SYNOPSIS", "DESCRIPTION", "SEE ALSO"],
}

failed = False


def report(name, problems, skip=None):
    global failed
    if skip:
        print(f"ok - {name} # SKIP {skip}")
        return
    for p in problems:
        print(f"#   {p}")
    if problems:
        failed = True
        print(f"not ok - {name}")
    else:
        print(f"ok - {name}")


def read(path):
    with open(path, encoding="utf-8") as f:
        return f.read()


class Page:
    def __init__(self, path):
        self.path = path                        # man/man3/x.3
        self.rel = os.path.relpath(path, MAN)   # man3/x.3
        self.section = self.rel[3]
        self.stem = os.path.basename(path)[:-2]
        self.text = read(path)
        m = re.fullmatch(r"\.so (\S+)\n?", self.text)
        self.so = m.group(1) if m else None
        self.rendered = None

    def sections(self):
        """Source lines of each .SH section, by name."""
        out, cur = {}, None
        for line in self.text.splitlines():
            m = re.match(r'\.SH\s+"?([^"]*)"?\s*$', line)
            if m:
                cur = m.group(1)
                out[cur] = []
            elif cur:
                out[cur].append(line)
        return out

    def names(self):
        """The names the NAME section lists before "\\-"."""
        src = " ".join(self.sections().get("NAME", []))
        return [n.strip() for n in src.split("\\-")[0].split(",") if n.strip()]

    def render(self):
        """Plain text, lines long enough that nothing wraps."""
        if self.rendered is None:
            self.rendered = self.groff()
        return self.rendered

    def groff(self):
        r = subprocess.run(["groff", "-s", "-t", "-man", "-Tascii", "-P-cbou",
                            "-rLL=250n", self.rel], cwd=MAN,
                           capture_output=True, text=True, check=False)
        return r.stdout

    def rendered_section(self, name):
        lines, on = [], False
        for line in self.render().splitlines():
            if re.match(r"[A-Z]", line):
                on = line.strip() == name
            elif on:
                lines.append(line)
        return "\n".join(lines)


pages = {p.rel: p for p in map(Page, sorted(glob.glob(f"{MAN}/man[1-8]/*.[1-8]")))}
mains = [p for p in pages.values() if not p.so]
aliases = [p for p in pages.values() if p.so]


def alias_pages():
    probs = []
    for a in aliases:
        t = pages.get(a.so)
        if t is None:
            probs.append(f"{a.path}: .so {a.so}: no such page")
        elif t.so:
            probs.append(f"{a.path}: .so {a.so}: an alias itself")
    report("every .so alias names an existing page that is not an alias", probs)


def headers():
    probs = []
    for p in mains:
        m = re.search(r"^\.TH\s+(\S+)\s+(\S+)", p.text, re.M)
        if not m or m.group(1) != p.stem.upper() or m.group(2) != p.section:
            probs.append(f"{p.path}: .TH must be {p.stem.upper()} {p.section}")
        if ".TS" in p.text and not re.match(r"'\\\" [a-z]*t", p.text):
            probs.append(f"{p.path}: has a table but no '\\\" t first line")
    report(".TH matches each page's name and section; tables are declared", probs)


def sections():
    probs = []
    for p in mains:
        have = p.sections()
        for s in REQUIRED.get(p.section, ["NAME", "SYNOPSIS", "DESCRIPTION"]):
            if s not in have or not any(l.strip() for l in have[s]):
                probs.append(f"{p.path}: no {s} section")
    report("every page has its required sections", probs)


def name_lines():
    probs = []
    for p in mains:
        names = p.names()
        if p.stem not in names:
            probs.append(f"{p.path}: NAME does not list {p.stem}")
        for n in names:
            q = pages.get(f"man{p.section}/{n}.{p.section}")
            if q is None or (q is not p and q.so != p.rel):
                probs.append(f"{p.path}: NAME lists {n}, but man{p.section}/{n}.{p.section}"
                             f" is not this page or an alias of it")
    for a in aliases:
        t = pages.get(a.so)
        if t and a.stem not in t.names():
            probs.append(f"{t.path}: NAME does not list its alias {a.stem}")
    report("NAME lines list exactly the names that have this page", probs)


def exported():
    text = read("libtrace/libposixtrace.map")
    syms = set()
    for block in re.findall(r"global:(.*?)(?:local:|\})", text, re.S):
        syms |= set(re.findall(r"^\s*([A-Za-z_]\w*)\s*;", block, re.M))
    probs = []
    for s in sorted(syms):
        if s in NO_PAGE:
            other = NO_PAGE[s]
            if other and other not in pages:
                probs.append(f"{s}: documented in {other}, which is missing")
            continue
        if f"man3/{s}.3" not in pages:
            probs.append(f"{s}: no man/man3/{s}.3")
    report("every symbol exported by libposixtrace.map has a man3 page", probs)
    return syms


def prototypes_of_header():
    text = read("include/trace.h")
    protos = {}
    for m in re.finditer(r"^(?:int|void|long) \(?(\w+)\)?\(([^;]*)\);", text, re.M):
        protos[m.group(1)] = normalize(m.group(0))
    # Functions that are also macros (posix_trace_event) need a page too.
    for m in re.finditer(r"^#define (posix_trace_\w+)\(", text, re.M):
        protos.setdefault(m.group(1), None)
    return protos


def normalize(proto):
    s = re.sub(r"\s+", " ", proto)
    s = s.replace("__restrict", "restrict")
    s = re.sub(r"\b__(\w+)(?=\s*[,)])", r"\1", s)      # parameter names
    s = re.sub(r"\*\s+", "*", s)
    s = re.sub(r"\(\s+", "(", s)
    s = re.sub(r"\s+([,)])", r"\1", s)
    return s.strip()


def header_functions(protos):
    probs = [f"{n}: no man/man3/{n}.3" for n in sorted(protos)
             if f"man3/{n}.3" not in pages]
    report("every function of <trace.h> has a man3 page", probs)


def synopses(protos):
    probs = []
    for p in (q for q in mains if q.section == "3"):
        syn = p.rendered_section("SYNOPSIS")
        if "#include <trace.h>" not in syn:
            probs.append(f"{p.path}: SYNOPSIS lacks #include <trace.h>")
        if "Link with -lposixtrace." not in syn:
            probs.append(f"{p.path}: SYNOPSIS lacks \"Link with -lposixtrace.\"")
        body = syn.replace("#include <trace.h>", "").replace("Link with -lposixtrace.", "")
        found = {}
        for decl in body.split(";"):
            decl = normalize(decl)
            m = re.match(r"\w+ \(?(\w+)\)?\(", decl)
            if m:
                found[m.group(1)] = decl + ";"
        names = p.names()
        for n in names:
            if n not in found:
                probs.append(f"{p.path}: SYNOPSIS has no prototype of {n}")
            elif protos.get(n) and found[n] != protos[n]:
                probs.append(f"{p.path}: {found[n]}")
                probs.append(f"{' ' * len(p.path)}  differs from <trace.h>: {protos[n]}")
        for n in found:
            if n not in names:
                probs.append(f"{p.path}: SYNOPSIS declares {n}, which NAME does not list")
    report("SYNOPSIS prototypes are exactly <trace.h>'s", probs)


def command_page():
    page = pages.get("man1/posix-trace.1")
    if page is None:
        report("posix-trace(1) lists every subcommand and exit code", ["no man/man1/posix-trace.1"])
        return
    text = page.render()
    syn = page.rendered_section("SYNOPSIS")
    probs = []
    cmds = re.findall(r'\{ "(\w+)", cmd_\w+,', read("tools/posix-trace/main.c"))
    if not cmds:
        probs.append("tools/posix-trace/main.c: no subcommand table found")
    for c in cmds:
        if f"posix-trace {c} " not in syn:
            probs.append(f"SYNOPSIS lacks \"posix-trace {c}\"")
    status = page.rendered_section("EXIT STATUS")
    for name, val in re.findall(r"#define (PT_EXIT_\w+)\s+(\d+)", read("tools/posix-trace/cli.h")):
        if not re.search(rf"^\s*{val}\b", status, re.M):
            probs.append(f"EXIT STATUS lacks {val} ({name})")
    report("posix-trace(1) lists every subcommand and exit code", probs)

    # Each option a subcommand's --help shows must be in the page.  A
    # subcommand whose --help does not exit 0 is not implemented yet.
    exe = "tools/posix-trace/posix-trace"
    name = "posix-trace(1) documents every option of each subcommand's --help"
    if not os.access(exe, os.X_OK):
        report(name, [], skip=f"{exe} not built")
        return
    probs, missing = [], []
    for c in cmds:
        r = subprocess.run([exe, c, "--help"], capture_output=True, text=True,
                           stdin=subprocess.DEVNULL, timeout=10, check=False)
        if r.returncode != 0:
            missing.append(c)
            continue
        opts = set(re.findall(r"(?<![\w-])(--[a-z][a-z0-9-]*|-[a-zA-Z])\b", r.stdout))
        for o in sorted(opts):
            if o not in text:
                probs.append(f"posix-trace {c} --help shows {o}, the page does not")
    if missing:
        print(f"# no --help yet (exit status not 0): {', '.join(missing)}")
    if len(missing) == len(cmds):
        report(name, [], skip="no subcommand answers --help yet")
    else:
        report(name, probs)


def overview_page():
    page = pages.get("man7/posix_trace.7")
    if page is None:
        report("posix_trace(7) describes every module parameter", ["no man/man7/posix_trace.7"])
        return
    text = page.render()
    params = set()
    for f in glob.glob("kmod/*.c"):
        params |= set(re.findall(r"module_param(?:_named|_cb)?\((\w+)", read(f)))
    probs = [f"module parameter {p} is not described" for p in sorted(params)
             if not re.search(rf"\b{p}\b", text)]
    if not params:
        probs.append("no module_param() found in kmod/*.c")
    report("posix_trace(7) describes every module parameter", probs)


if not pages:
    report("man pages exist", [f"nothing in {MAN}/man[1-8]/"])
    sys.exit(1)
alias_pages()
headers()
sections()
name_lines()
exported()
protos = prototypes_of_header()
header_functions(protos)
synopses(protos)
command_page()
overview_page()
sys.exit(1 if failed else 0)
