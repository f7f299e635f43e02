#!/usr/bin/env python3
"""Every citation of a documentation section names a doc and a heading that exist.

  check_doc_refs.py [--source REPO] [--list]

Reads the repository's files (git's list: tracked plus new files not ignored; without git, a walk
that skips build trees) with these suffixes: .cc .h .cpp .hpp .c .txt .cmake .sh .py .js .mjs
.yml .yaml .sbatch .md, plus Dockerfiles and .ci/run. Comment markers at the start of a line
(`//`, `#`, `*`, `--`; not in .md files) are dropped and lines are joined, so a citation may break
across lines (an unquoted section name ends at the line's end); `\\"` counts as `"` (a citation
inside a shell or C string).

Citation patterns understood (FILE is a path ending in `.md`, written as `docs/<name>.md`,
`<name>.md` or as a Markdown link target `[text](<name>.md)`):

  FILE, "Section"       FILE "Section"       FILE § "Section"       FILE, § "Section"
      quoted: the section's words (case, backticks and punctuation ignored) are the first words
      of a heading of FILE, e.g. "Two binaries" cites "### Two binaries for the coordinator".
  FILE § Section words
      unquoted: the words after § up to the line's end, `)`, `]`, `(`, `,`, `;`, `:`, `§` or
      `.`+space. A heading's words must be the first of them, or they the first of a heading's,
      or the two share their first two words (prose may follow: "§ Host policy has the rules").
  FILE §3.3    FILE § 4a    FILE §1-§3    FILE §3.3–§4    FILE §8 [OPEN] 2
      numbered: a heading that starts with that number ("### 3.3 Qualnames ...", "### 4a. ...").
  FILE § A, § B           FILE § A and § B
      several sections of one doc.

FILE resolves against the citing file's folder, the repository root, then docs/. Headings are
Markdown ATX headings (`#` to `######`) outside fenced code blocks; a leading `<placeholder>/` is
dropped (`<output-dir>/fleet_timeseries.csv` is cited as fleet_timeseries.csv). Not checked: a
Markdown link's anchor (`](<name>.md#anchor)`), a citation without quotes or § (`FILE, tenth
pass`), and a bold paragraph label (`**The Python baseline**`), which is no heading: cite the
heading above it.

Exit 0 when every citation resolves (the count is printed), 1 with `file:line: problem` lines.
"""
import argparse
import os
import re
import subprocess
import sys

SUFFIXES = (".cc", ".h", ".cpp", ".hpp", ".c", ".txt", ".cmake", ".sh", ".py", ".js", ".mjs",
            ".yml", ".yaml", ".sbatch", ".md")
SKIP_DIRS = {".git", "node_modules", "third_party"}

DOC = r"(?P<doc>(?:[\w.-]+/)*[\w-][\w.-]*\.md)"
# After the doc: an optional `)` closing a Markdown link, then the section.
# A section name starts with a letter, a digit, a backtick or `<` and ends without a space, so
# `"see docs/a.md ", x, "..."` (two strings of code) is no citation.
QUOTED = r'"(?P<quoted>[\w`<](?:[^"]{0,118}[^"\s])?)"'
UNQUOTED = (r"(?P<plain>[^\"\s)\];,:(§][^\"\n)\];,:(§]{0,160}?)"
            r"(?=[\n)\];,:(\"§]|\s*[-–]\s*§|\s+and\s+§|\.(?:\s|$)|$)")
CITATION = re.compile(
    r"(?<![\w/.-])" + DOC + r"(?P<close>\))?"
    r"(?:\s*,\s*|\s+)?"
    r"(?:(?P<sect>§)\s*)?"
    r"(?:" + QUOTED + "|" + UNQUOTED + ")")
# Further sections of the same doc: `, § B`, ` and § B`, `-§4`, `–§4`.
MORE = re.compile(r"\s*(?:,|and|-|–)\s*§\s*(?:" + QUOTED + "|" + UNQUOTED + ")")
NUMBER = re.compile(r"^(\d+(?:\.\d+)*[a-z]?)(?=$|[^\w.]|\.(?!\d))")
HEADING = re.compile(r"^ {0,3}(#{1,6})\s+(.*?)\s*#*\s*$")
FENCE = re.compile(r"^ {0,3}(```|~~~)")


def words(text):
    text = text.replace("`", "").replace("*", "").lower()
    return re.findall(r"[^\W_]+(?:_[^\W_]+)*", text)


class Doc:
    def __init__(self, path):
        self.headings = []  # word lists, with and without a leading section number
        self.numbers = set()
        fenced = False
        with open(path, encoding="utf-8", errors="replace") as f:
            for line in f:
                if FENCE.match(line):
                    fenced = not fenced
                    continue
                m = None if fenced else HEADING.match(line)
                if not m:
                    continue
                # `<output-dir>/name.csv` is cited as name.csv.
                title = re.sub(r"^`?<[^>]*>/", "", m.group(2))
                self.headings.append(words(title))
                n = NUMBER.match(title)
                if n:
                    self.numbers.add(n.group(1))
                    self.headings.append(words(title[n.end():]))

    def has_quoted(self, cited):
        c = words(cited)
        return bool(c) and any(h[:len(c)] == c for h in self.headings)

    def has_plain(self, cited):
        c = words(cited)
        if not c:
            return False
        for h in self.headings:
            if not h:
                continue
            if c[:len(h)] == h or h[:len(c)] == c:
                return True
            if len(c) >= 2 and h[:2] == c[:2]:
                return True
        return False

    def has_number(self, cited):
        n = NUMBER.match(cited.strip())
        return n is not None and n.group(1) in self.numbers


def listed_files(root):
    try:
        out = subprocess.run(
            ["git", "-C", root, "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
            capture_output=True, check=True).stdout.decode()
        paths = sorted(set(p for p in out.split("\0") if p))
    except (OSError, subprocess.CalledProcessError):
        paths = []
        for d, dirs, files in os.walk(root):
            dirs[:] = [x for x in dirs if x not in SKIP_DIRS and not x.startswith("build")]
            paths += [os.path.relpath(os.path.join(d, f), root) for f in files]
    for p in paths:
        name = os.path.basename(p)
        if any(part in SKIP_DIRS for part in p.split("/")):
            continue
        if p.endswith(SUFFIXES) or name.startswith("Dockerfile") or p == ".ci/run":
            if os.path.isfile(os.path.join(root, p)):
                yield p


def flatten(path, text):
    """The file as one string (comment markers dropped, lines joined) and each line's offset."""
    markdown = path.endswith(".md")
    parts, starts, pos = [], [], 0
    for line in text.split("\n"):
        line = line.strip()
        if not markdown:
            line = re.sub(r"^(?://+!?|#+!?|/?\*+/?|--)\s*", "", line).replace('\\"', '"')
        starts.append(pos)
        parts.append(line)
        pos += len(line) + 1
    return "\n".join(parts), starts


def line_of(starts, offset):
    lo, hi = 0, len(starts) - 1
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if starts[mid] <= offset:
            lo = mid
        else:
            hi = mid - 1
    return lo + 1


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--source", default=os.path.join(os.path.dirname(__file__), "..", ".."),
                    help="the repository (default: this script's ../..)")
    ap.add_argument("--list", action="store_true", help="print every citation found")
    args = ap.parse_args()
    root = os.path.abspath(args.source)

    docs, problems, checked = {}, [], 0

    def doc_for(citing, name):
        here = os.path.dirname(os.path.join(root, citing))
        for cand in (os.path.join(here, name), os.path.join(root, name),
                     os.path.join(root, "docs", name)):
            cand = os.path.normpath(cand)
            if os.path.isfile(cand):
                if cand not in docs:
                    docs[cand] = Doc(cand)
                return docs[cand], os.path.relpath(cand, root)
        return None, None

    for rel in listed_files(root):
        with open(os.path.join(root, rel), "rb") as f:
            raw = f.read()
        if b"\0" in raw:
            continue
        flat, starts = flatten(rel, raw.decode("utf-8", errors="replace"))
        for m in CITATION.finditer(flat):
            quoted, plain = m.group("quoted"), m.group("plain")
            # A quoted citation needs a separator after the doc; an unquoted one needs §. A doc
            # name that is itself a quoted string ("a.md", "b.md") is not a citation.
            sep = flat[m.end("close") if m.group("close") else m.end("doc"):m.start("quoted") - 1
                       if quoted else m.start("plain")]
            if plain is not None and not m.group("sect"):
                continue
            if quoted is not None and not m.group("sect"):
                if m.start("doc") > 0 and flat[m.start("doc") - 1] in "\"'":
                    continue
                if not sep or sep.strip() not in ("", ","):
                    continue
            sections = [(quoted, plain)]
            end = m.end()
            while True:
                more = MORE.match(flat, end)
                if not more:
                    break
                sections.append((more.group("quoted"), more.group("plain")))
                end = more.end()
            line = line_of(starts, m.start("doc"))
            doc, doc_rel = doc_for(rel, m.group("doc"))
            if doc is None:
                problems.append(f"{rel}:{line}: {m.group('doc')}: no such document")
                continue
            for q, p in sections:
                checked += 1
                cited = " ".join((q if q is not None else p).split())
                if NUMBER.match(cited):
                    cited = NUMBER.match(cited).group(1)
                    ok = doc.has_number(cited)
                elif q is not None:
                    ok = doc.has_quoted(cited)
                else:
                    ok = doc.has_plain(cited)
                if args.list:
                    print(f"{rel}:{line}: {m.group('doc')} | {cited} | {'ok' if ok else 'BROKEN'}")
                if not ok:
                    shown = f'"{cited}"' if q is not None else f"§ {cited}"
                    problems.append(f"{rel}:{line}: {m.group('doc')} {shown}: "
                                    f"no such heading in {doc_rel}")

    for p in problems:
        print(p)
    if problems:
        print(f"check_doc_refs: {len(problems)} broken of {checked} section citations")
        return 1
    print(f"check_doc_refs: {checked} section citations, all resolve")
    return 0


if __name__ == "__main__":
    sys.exit(main())
