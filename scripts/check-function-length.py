#!/usr/bin/env python3
"""No function over 80 lines (issue 39; docs/architecture.md, "The rooms").

  check-function-length.py [--source REPO] [--limit N] [--list N]

Scans the C++ sources of the rooms and the processes (not tests/ or bench/) for function
bodies and fails naming `file:line: name is N lines` for each one longer than the limit. A
function's length counts the lines from its opening brace to its closing brace, both included;
lambdas, local classes and nested blocks count as part of the function that holds them.

The scan matches braces in the text with comments, string, character and raw-string literals
and preprocessor lines removed. At namespace and class scope a `{` opens a function body when
the declaration before it has a parameter list and ends like one (`)`, a qualifier such as
`const`/`noexcept`/`override`, a trailing return type, or a constructor's initializer list);
`namespace`, `class`/`struct`/`union`/`enum` and `extern "C"` open scopes; any other brace
(an initializer) is skipped. --list N prints every function over N lines (a survey).
"""
import argparse
import os
import re
import subprocess
import sys

LIMIT = 80
ROOMS = ("util", "trace", "stats", "wire", "security", "plan", "engine", "replay", "summary",
         "insight", "worker", "coordinator", "tools")
SOURCE_SUFFIXES = (".cc", ".h", ".cc.in")

# (path, function name) -> why it may be longer than the limit. Only what issue 39 allows:
# generated tables and the hot skip state machine. An entry whose function is no longer over
# the limit fails the check, so the list cannot outlive its reason.
EXCEPTIONS = {
    ("trace/msgpack_reader.cc", "MsgpackReader::skip_depth"):
        "the hot skip state machine: one loop over msgpack's type bytes with the cursor in "
        "registers; the planner and every skipped record go through it",
}
# Long functions that work in progress is about to split: listed so this check passes meanwhile,
# and failing as stale once the function is short, so an entry cannot outlive its reason.
PENDING: dict = {}

QUALIFIERS = {"const", "noexcept", "override", "final", "mutable", "try", "volatile", "&", "&&"}
IDENT = re.compile(r"[A-Za-z_][A-Za-z_0-9]*")


def source_files(root):
    try:
        out = subprocess.run(["git", "ls-files", "--cached", "--others", "--exclude-standard"],
                             cwd=root, check=True, capture_output=True, text=True).stdout
        paths = out.splitlines()
    except (OSError, subprocess.CalledProcessError):
        paths = []
        for d, dirs, files in os.walk(root):
            dirs[:] = [x for x in dirs if not x.startswith(("build", ".git", "node_modules"))]
            paths += [os.path.relpath(os.path.join(d, f), root) for f in files]
    return sorted(p for p in paths
                  if p.split("/", 1)[0] in ROOMS and p.endswith(SOURCE_SUFFIXES)
                  and os.path.exists(os.path.join(root, p)))


def strip_code(text):
    """The text with comments, literals and preprocessor lines blanked; newlines kept, so
    offsets still give line numbers. A literal becomes `""` or `''` (a token, no braces)."""
    out, i, n = [], 0, len(text)
    line_start = True
    while i < n:
        c = text[i]
        if line_start and c == "#":
            # A preprocessor line, with its backslash continuations.
            while i < n and text[i] != "\n":
                if text[i] == "\\" and i + 1 < n and text[i + 1] == "\n":
                    out.append("\n")
                    i += 2
                    continue
                i += 1
            continue
        if c == "\n":
            out.append(c)
            line_start = True
            i += 1
            continue
        if c in " \t\r":
            out.append(c)
            i += 1
            continue
        line_start = False
        if text.startswith("//", i):
            while i < n and text[i] != "\n":
                i += 1
            continue
        if text.startswith("/*", i):
            end = text.find("*/", i + 2)
            end = n if end < 0 else end + 2
            out.append("\n" * text.count("\n", i, end) or " ")
            i = end
            continue
        raw = re.match(r'(?:u8|u|U|L)?R"([^(\s]{0,16})\(', text[i:i + 24])
        if raw and not (i > 0 and (text[i - 1].isalnum() or text[i - 1] == "_")):
            close = ")" + raw.group(1) + '"'
            end = text.find(close, i + raw.end())
            end = n if end < 0 else end + len(close)
            out.append('""' + "\n" * text.count("\n", i, end))
            i = end
            continue
        if c == '"' or (c == "'" and not is_digit_separator(text, i)):
            j = i + 1
            while j < n and text[j] != c and text[j] != "\n":
                j += 2 if text[j] == "\\" else 1
            out.append(c + c)
            i = j + 1
            continue
        out.append(c)
        i += 1
    return "".join(out)


def is_digit_separator(text, i):
    """`1'000'000`: a quote inside a number, not a character literal."""
    j = i
    while j > 0 and (text[j - 1].isalnum() or text[j - 1] in "_'."):
        j -= 1
    return j < i and text[j].isdigit() and i + 1 < len(text) and text[i + 1].isalnum()


def tokens(code):
    """(token, offset) pairs: identifiers and numbers, `::`, `->`, `&&`, single characters."""
    for m in re.finditer(r"[A-Za-z_0-9]+|::|->|&&|\S", code):
        yield m.group(0), m.start()


def drop_template_and_attributes(head):
    """The declaration without its leading `template <...>` clauses and `[[...]]` attributes."""
    out, i = [], 0
    while i < len(head):
        if head[i] == "template" and i + 1 < len(head) and head[i + 1] == "<":
            depth, i = 0, i + 1
            while i < len(head):
                depth += {"<": 1, ">": -1}.get(head[i], 0)
                i += 1
                if depth == 0:
                    break
            continue
        if head[i] == "[" and i + 1 < len(head) and head[i + 1] == "[":
            while i < len(head) and not (head[i] == "]" and i + 1 < len(head) and
                                         head[i + 1] == "]"):
                i += 1
            i += 2
            continue
        out.append(head[i])
        i += 1
    return out


def scope_kind(head):
    """What a `{` after the declaration `head` (its tokens) opens at namespace or class scope:
    "namespace", "class", "function" or "skip" (an initializer)."""
    decl = drop_template_and_attributes(head)
    if not decl or decl[0] == "namespace" or decl[:2] == ["extern", '""']:
        return "namespace" if decl else "skip"
    depth, first_paren = 0, None
    for k, t in enumerate(decl):
        if t in ("class", "struct", "union", "enum") and depth == 0 and first_paren is None:
            return "class"
        if t == "=" and depth == 0 and first_paren is None:
            return "skip"
        if t == "(":
            first_paren = k if first_paren is None else first_paren
            depth += 1
        elif t == ")":
            depth -= 1
    if first_paren is None or depth != 0:
        return "skip"
    last = decl[-1]
    if last in (")", "}") or last in QUALIFIERS:
        return "function"
    # A trailing return type: `-> T` after the parameter list.
    after_params = decl[len(decl) - decl[::-1].index(")"):]
    return "function" if "->" in after_params else "skip"


def function_name(head):
    """The qualified name before the parameter list: `Foo::bar`, `Foo::~Foo`, `operator[]`."""
    decl = drop_template_and_attributes(head)
    if "operator" in decl:
        n = decl.index("operator")
        rest = decl[n + 1:]
        symbol = "()" if rest[:2] == ["(", ")"] else "".join(rest[:rest.index("(")])
        name = "operator" + symbol
    elif "(" in decl and decl.index("(") > 0:
        n = decl.index("(") - 1
        name = decl[n]
        if n > 0 and decl[n - 1] == "~":
            n, name = n - 1, "~" + name
    else:
        return "?"
    while n >= 2 and decl[n - 1] == "::" and IDENT.fullmatch(decl[n - 2]):
        n, name = n - 2, decl[n - 2] + "::" + name
    return name


def long_functions(code, limit):
    """(line, name, length) of each function body in `code` longer than `limit` lines."""
    found = []
    stack = []  # one entry per open brace: "namespace", "class", "function", "skip"
    head = []   # the current declaration's tokens at namespace or class scope
    fn = None   # (open offset, name, depth) of the function being scanned
    for tok, pos in tokens(code):
        in_body = any(k in ("function", "skip") for k in stack)
        if tok == "{":
            if in_body:
                stack.append("inner")
                continue
            kind = scope_kind(head)
            stack.append(kind)
            if kind == "function":
                fn = (pos, function_name(head), len(stack))
            if kind in ("namespace", "class"):
                head = []
            continue
        if tok == "}":
            kind = stack.pop() if stack else "namespace"
            if fn and len(stack) + 1 == fn[2]:
                first = code.count("\n", 0, fn[0]) + 1
                last = code.count("\n", 0, pos) + 1
                if last - first + 1 > limit:
                    found.append((first, fn[1], last - first + 1))
                fn = None
                head = []
            elif kind in ("namespace", "class"):
                head = []
            elif kind == "skip":
                head += ["{", "}"]
            continue
        if in_body:
            continue
        if tok == ";" or (tok == ":" and head in (["public"], ["private"], ["protected"])):
            head = []
            continue
        head.append(tok)
    return found


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--source", default=os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    ap.add_argument("--limit", type=int, default=LIMIT)
    ap.add_argument("--list", type=int, metavar="N", help="print every function over N lines")
    args = ap.parse_args()
    named = {**EXCEPTIONS, **PENDING}
    problems, allowed, seen, scanned = [], [], set(), []
    threshold = min(args.limit, args.list if args.list is not None else args.limit)
    for path in source_files(args.source):
        with open(os.path.join(args.source, path), encoding="utf-8", errors="replace") as f:
            code = strip_code(f.read())
        scanned.append(path)
        for line, name, length in long_functions(code, threshold):
            where = f"{path}:{line}: {name} is {length} lines"
            if args.list is not None and length > args.list:
                print(where)
            if length <= args.limit:
                continue
            if (path, name) in named:
                seen.add((path, name))
                label = "allowed" if (path, name) in EXCEPTIONS else "pending"
                allowed.append(f"{where} ({label}: {named[(path, name)]})")
            else:
                problems.append(f"{where} (limit {args.limit}): split it into phases or helpers")
    for path, name in sorted(set(named) - seen):
        if path in scanned:
            problems.append(f"{path}: {name} is no longer over {args.limit} lines: remove its "
                            "entry from check-function-length.py")
    for a in allowed:
        print(a)
    for p in problems:
        print(p)
    if problems:
        return 1
    print(f"check-function-length: no function over {args.limit} lines in {len(scanned)} files "
          f"but {len(allowed)} named")
    return 0


if __name__ == "__main__":
    sys.exit(main())
