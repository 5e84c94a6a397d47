#!/usr/bin/env python3
"""Checks that comments and docs cite only what is in the repository.

    source_references.py [ROOT]    scan ROOT (default: found from the runfiles)
    source_references.py --self-test

Scans *.h *.cc *.def *.bzl BUILD.bazel *.sh *.py *.md under ROOT, skipping
bazel-* output links, third_party/, hidden folders and this file (it holds the
self-test's planted offences), and reports, one line each as `file:line: ...`:
  (a) a mention of a document that lives outside the repository (the design,
      style and toolchain notes, or anything under ../shared);
  (b) a "Tested by" / "Exercised by" / "Shown by" / "tested through" sentence
      naming a file that does not exist: `dir/x_test.cc` from the root, a bare
      `x_test.cc` from the citing file's folder or from the folder of the path
      the sentence named before it;
  (c) a repository path (compiler/ repro/ minifier/ testing/ tools/ base/
      bench/ docs/ ...: a file, a folder, or a build output named like its
      target, e.g. tools/reprokit) that does not exist, or a label
      (//pkg, //pkg:target, //pkg/...) that names no package or target (Bazel
      checks those in BUILD and .bzl files itself). In C++ files only comments
      count. Paths with placeholders (`<`, `*`, `{`, `$`, `...`, or a `foo` or
      `name` component) are skipped.
Exits 1 when anything is reported. --self-test plants offences of each kind in
a temporary tree and checks that every one is reported, and that a clean tree
passes. Run as the Bazel test //tools:source_references_test.
"""

import os
import re
import sys
import tempfile

# Spelled in pieces so that a grep for them does not find this file.
FORBIDDEN = ["DESIGN" + ".md", "STYLE" + ".md", "TOOLCHAIN" + ".md",
             ".." + "/shared"]

# This file holds planted offences for its self-test; it is not scanned.
SELF = "source_references.py"
EXTENSIONS = (".h", ".cc", ".def", ".bzl", ".sh", ".py", ".md")
CPP_EXTENSIONS = (".h", ".cc", ".def")
TOP_DIRS = ("compiler", "repro", "minifier", "testing", "tools", "base",
            "bench", "docs", "examples", "repros", "third_party", "python")
CHECKED_PREFIXES = ("compiler", "repro", "minifier", "testing", "tools",
                    "base", "bench", "docs")

# A repository path: one of the checked top folders, then anything up to a
# space, quote, bracket, `:` (file:line) or `#` (a Markdown anchor). Trailing
# punctuation is dropped afterwards, and a token with a placeholder is skipped.
REPO_PATH = re.compile(
    r"(?<![\w./\-@$*<>{}~])((?:%s)/[^\s`'\"()\[\],;|\\:#]*)"
    % "|".join(CHECKED_PREFIXES))
# Any file name in a "Tested by" sentence.
ANY_FILE = re.compile(
    r"(?<![\w./\-@$*<>{}~])([\w][^\s`'\"()\[\],;|\\:#]*\.(?:h|cc|sh|py|bzl))"
    r"(?![\w\-*{<>])")
# A Bazel label of this workspace: //pkg, //pkg:target or //pkg/... .
LABEL = re.compile(
    r"(?<![\w@:/])//((?:%s)(?:/[\w\-][\w\-.]*)*)(/\.\.\.|:[\w\-.+/]+)?"
    % "|".join(CHECKED_PREFIXES))
TESTED_BY = re.compile(r"\b(tested by|exercised by|shown by|tested through)\b",
                       re.IGNORECASE)
PLACEHOLDER = re.compile(r"[<*{$]|\.\.\.|(?:^|[/_.])(?:foo|name)(?:[/_.]|$)")
COMMENT_LEADER = re.compile(r"^\s*(//+|#+|\*|/\*+)\s?")


def scanned_files(root):
  for dirpath, dirnames, filenames in os.walk(root):
    rel_dir = os.path.relpath(dirpath, root)
    keep = []
    for d in dirnames:
      if d.startswith(".") or d.startswith("bazel-"):
        continue
      if rel_dir == "." and d == "third_party":
        continue
      keep.append(d)
    dirnames[:] = sorted(keep)
    for f in sorted(filenames):
      if (f == "BUILD.bazel" or f.endswith(EXTENSIONS)) and not (
          rel_dir == "tools" and f == SELF):
        path = os.path.join(dirpath, f)
        if os.path.isfile(path):
          yield os.path.relpath(path, root)


def comment_part(line):
  """The comment text of a C++ line ('' when none): text after a // that is
  not inside a string literal, or the line itself inside a block comment."""
  in_string = False
  i = 0
  while i < len(line):
    c = line[i]
    if c == "\\" and in_string:
      i += 2
      continue
    if c == '"':
      in_string = not in_string
    elif not in_string and line.startswith("//", i):
      return line[i:]
    elif not in_string and line.startswith("/*", i):
      return line[i:]
    i += 1
  stripped = line.lstrip()
  if stripped.startswith("*"):
    return stripped
  return ""


def referable_text(rel, lines):
  """Per line, the text in which references count."""
  if rel.endswith(CPP_EXTENSIONS):
    return [comment_part(l) for l in lines]
  return lines


def sentence_from(texts, index, start):
  """The text of the sentence that begins at texts[index][start:], joined
  across continuation lines (at most 6), without comment leaders."""
  parts = [texts[index][start:]]
  j = index + 1
  while j < len(texts) and j < index + 6:
    if re.search(r"\.(\s|$)|\)\s*$", parts[-1].rstrip() + " "):
      break
    body = COMMENT_LEADER.sub("", texts[j]).strip()
    if not body:
      break
    parts.append(body)
    j += 1
  text = " ".join(p.strip() for p in parts)
  end = re.search(r"\.(\s|$)", text)
  return text[: end.start() + 1] if end else text


def target_exists(root, package, target):
  """Whether package's BUILD.bazel names target (quoted anywhere: rules,
  lists that macros expand) or target is a file there."""
  if os.path.exists(os.path.join(root, package, target)):
    return True
  build = os.path.join(root, package, "BUILD.bazel")
  if not os.path.isfile(build):
    return False
  with open(build, encoding="utf-8", errors="replace") as f:
    return '"%s"' % target in f.read()


def label_exists(root, package, suffix):
  """Whether //package, //package/... or //package:target names something."""
  if not suffix or suffix == "/...":
    return os.path.isdir(os.path.join(root, package))
  return target_exists(root, package, suffix[1:])


def path_exists(root, p):
  """A file or folder, or a build output: a target of the package it is in
  (bazel-bin/tools/reprokit is cited as tools/reprokit)."""
  return os.path.exists(os.path.join(root, p)) or target_exists(
      root, os.path.dirname(p), os.path.basename(p))


def clean_path(p):
  """The path without trailing punctuation, or None for a placeholder."""
  p = p.rstrip(".:")
  if PLACEHOLDER.search(p):
    return None
  return p


def check_file(root, rel, offences):
  path = os.path.join(root, rel)
  with open(path, encoding="utf-8", errors="replace") as f:
    lines = f.read().split("\n")
  folder = os.path.dirname(rel)
  build_file = rel.endswith((".bzl", "BUILD.bazel"))
  texts = referable_text(rel, lines)
  reported = set()

  def report(lineno, message):
    if (lineno, message) not in reported:
      reported.add((lineno, message))
      offences.append("%s:%d: %s" % (rel, lineno, message))

  for i, line in enumerate(lines):
    for word in FORBIDDEN:
      if word in line:
        report(i + 1, "cites %s, which is not in the repository" % word)

  for i, text in enumerate(texts):
    # (c) repository paths and labels, anywhere in the text.
    for m in REPO_PATH.finditer(text):
      p = clean_path(m.group(1))
      if p and not path_exists(root, p):
        report(i + 1, "%s does not exist" % p)
    # Bazel itself checks the labels of BUILD and .bzl files.
    for m in LABEL.finditer("" if build_file else text):
      suffix = (m.group(2) or "").rstrip(".")
      if not label_exists(root, m.group(1), suffix):
        report(i + 1, "//%s%s does not exist" % (m.group(1), suffix))
    # (b) the files a "Tested by" sentence names; repository paths on the
    # sentence's other lines are checked there.
    for t in TESTED_BY.finditer(text):
      sentence = sentence_from(texts, i, t.end())
      # A bare name may also be relative to the folder of the path named last
      # before it ("compiler/driver/compile_test.cc and compile_diff_test.cc",
      # "the tests in compiler/driver/ (compile_test.cc)").
      folders = [(m.start(), m.group(1).rstrip(".:"))
                 for m in REPO_PATH.finditer(sentence)]
      for m in ANY_FILE.finditer(sentence):
        p = clean_path(m.group(1))
        if not p:
          continue
        if "/" in p and p.split("/")[0] in TOP_DIRS:
          if REPO_PATH.fullmatch(p):
            continue
          candidates = [p]
        else:
          candidates = [os.path.join(folder, p)]
          before = [f for start, f in folders if start < m.start()]
          if before:
            last = before[-1]
            last_folder = last if last.endswith("/") else os.path.dirname(last)
            candidates.append(os.path.join(last_folder, p))
        if not any(os.path.exists(os.path.join(root, c)) for c in candidates):
          report(i + 1, "%s names %s, which does not exist"
                 % (t.group(1), candidates[0]))


def scan(root):
  offences = []
  count = 0
  for rel in scanned_files(root):
    count += 1
    check_file(root, rel, offences)
  return count, offences


def run(root):
  count, offences = scan(root)
  for o in offences:
    print(o)
  print("source references: %d files scanned, %d offences"
        % (count, len(offences)))
  return 1 if offences else 0


def write(root, rel, text):
  path = os.path.join(root, rel)
  os.makedirs(os.path.dirname(path), exist_ok=True)
  with open(path, "w", encoding="utf-8") as f:
    f.write(text)


def self_test():
  """Plants one offence of each kind; every one must be reported."""
  failures = []
  with tempfile.TemporaryDirectory() as root:
    write(root, "README.md", "See docs/GOOD.md.\n")
    write(root, "docs/GOOD.md",
          "The code is tools/good.h, tested by `tools/good_test.cc`.\n")
    write(root, "tools/BUILD.bazel", 'sh_test(name = "good_sh_test")\n')
    write(root, "tools/good_test.cc", "// Tests tools/good.h.\n")
    write(root, "tools/good.h",
          "// Good.\n//\n// Tested by tools/good_test.cc and\n"
          "// good_test.cc (and //tools:good_sh_test).\n"
          'const char* kIgnored = "compiler/not_in_a_comment.h";\n')
    write(root, "compiler/x.h",
          "// Shown by the tests in tools/ (good_test.cc).\n")
    write(root, "bazel-out/stale.md", "docs/gone.md\n")
    count, offences = scan(root)
    if offences:
      failures.append("clean tree reported: %s" % offences)
    if count != 6:
      failures.append("clean tree: %d files scanned, expected 6" % count)

    write(root, "tools/bad.h",
          "// Bad.\n"
          "// See " + FORBIDDEN[0] + " section 5.\n"
          "// Exercised by the planted\n// gone_test.cc.\n"
          "// Shown by //tools:gone_test.\n")
    write(root, "compiler/y.h",
          "// Tested by the tests in tools/ (gone_test.cc).\n")
    write(root, "docs/BAD.md",
          "Code in `compiler/gone/x.h`; not `tools/<stem>.h`.\n")
    count, offences = scan(root)
    expected = [
        "tools/bad.h:2: cites " + FORBIDDEN[0],
        "tools/bad.h:3: Exercised by names tools/gone_test.cc",
        "tools/bad.h:5: //tools:gone_test does not exist",
        "compiler/y.h:1: Tested by names compiler/gone_test.cc",
        "docs/BAD.md:1: compiler/gone/x.h does not exist",
    ]
    for e in expected:
      if not any(o.startswith(e) for o in offences):
        failures.append("planted offence not reported: %s (got %s)"
                        % (e, offences))
    if len(offences) != len(expected):
      failures.append("expected %d offences, got %s"
                      % (len(expected), offences))
  for f in failures:
    print("self-test: " + f)
  print("source references self-test: %s" % ("FAILED" if failures else "ok"))
  return 1 if failures else 0


def find_root():
  """The source tree: README.md in the runfiles is a link into it (tests run
  with --spawn_strategy=local)."""
  for candidate in [
      os.path.join(os.environ.get("TEST_SRCDIR", ""),
                   os.environ.get("TEST_WORKSPACE", ""), "README.md"),
      "README.md",
  ]:
    if os.path.exists(candidate):
      root = os.path.dirname(os.path.realpath(candidate))
      if os.path.isdir(os.path.join(root, "compiler")) and os.path.isdir(
          os.path.join(root, "docs")):
        return root
  return None


def main(argv):
  if argv[1:] == ["--self-test"]:
    return self_test()
  if len(argv) == 2:
    return run(argv[1])
  if len(argv) == 1:
    root = find_root()
    if root is None:
      print("cannot find the source tree from README.md in the runfiles")
      return 1
    return run(root)
  print(__doc__)
  return 2


if __name__ == "__main__":
  sys.exit(main(sys.argv))
