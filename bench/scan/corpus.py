#!/usr/bin/env python3
"""Measures `dualperf scan` on real IPv6 porting diffs (issue 17).

The corpus (`corpus.json` beside this script) names packages from public
registries -- PyPI sdists, npm tarballs, Debian source packages -- at two
versions, or one Debian source package and the patch in it, or one commit of
a public git repository (old side: its parent), where the change between the
two is an IPv6 port. For each project it lists the files to
compare and, per file, the hunks of the diff that are IPv4 dependencies
themselves (by the first removed line, 1-based, in the old file).

    bench/scan/corpus.py fetch                 # download and unpack into the cache
    bench/scan/corpus.py hunks PROJECT         # print a project's hunks (for curating)
    bench/scan/corpus.py measure [--scanner CMD] [--json] [--set developers|tuning|held-out]

`measure` scans the old version of every listed file and prints, per language:
  * hunk recall: the share of IPv4-dependency hunks with a finding on one of
    their removed lines;
  * outside findings: findings in the listed files on lines that no hunk of
    the diff changes (the same files before and after a scanner change, so the
    count is comparable), split into warnings/errors and notes;
  * of the outside warnings/errors, how many a person labelled `false` (the
    code does not depend on IPv4), `real` (it does: a reviewer porting to
    IPv6 has to look at it) or not at all (`unlabelled`). Labels live in
    the project's `outside_labels`, keyed by file, line and rule.

The scanner command must accept paths and print `dualperf scan --json`
output; by default the scanner-only example is built and run:
    cargo run -q --release -p dualperf-scan --example scan_json --
Projects are in one of three sets: `developers` (the issue-17 corpus),
`tuning` (real IPv6-porting commits the issue-28 rules were developed
looking at) and `held-out` (labelled, never used to change a rule: only
measured). `--set` measures one set; default all, reported apart.

Downloaded sources go to $DUALPERF_CORPUS_CACHE (default target/scan-corpus)
and are never committed. Git projects (`"source": "git"`) are read from a
local clone: $DUALPERF_CORPUS_MIRROR/<owner>+<name>/repo if it exists
(default /work/.mirror, where snapshots fetched for the team land), else a
blob-less clone of https://github.com/<owner>/<name> made into the cache; only
the listed files of the commit and its parent are written out. Debian sources need `deb-src` entries for the suite
that holds the named version (then `apt-get update`); PyPI needs pip, npm npm.
"""

import argparse
import difflib
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import tarfile
import urllib.request
import zipfile

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.abspath(os.path.join(HERE, "..", ".."))
CACHE = os.environ.get("DUALPERF_CORPUS_CACHE", os.path.join(REPO, "target", "scan-corpus"))
DEFAULT_SCANNER = "cargo run -q --release -p dualperf-scan --example scan_json --"

LANGUAGES = {
    ".c": "C", ".h": "C",
    ".cc": "C++", ".cpp": "C++", ".cxx": "C++", ".hpp": "C++", ".hh": "C++", ".hxx": "C++",
    ".py": "Python", ".go": "Go", ".java": "Java",
    ".js": "JavaScript", ".mjs": "JavaScript", ".cjs": "JavaScript", ".jsx": "JavaScript",
    ".ts": "TypeScript", ".tsx": "TypeScript", ".rs": "Rust",
}


def language_of(path):
    return LANGUAGES.get(os.path.splitext(path)[1].lower(), "other")


def load_corpus():
    with open(os.path.join(HERE, "corpus.json")) as f:
        return json.load(f)["projects"]


def run(cmd, cwd=None, check=True):
    result = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True)
    if check and result.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} failed:\n{result.stderr[-2000:]}")
    return result


def unpack(archive, dest):
    """Unpacks `archive` into `dest` and returns the single top directory."""
    os.makedirs(dest, exist_ok=True)
    if archive.endswith(".zip"):
        with zipfile.ZipFile(archive) as z:
            z.extractall(dest)
    else:
        with tarfile.open(archive) as t:
            t.extractall(dest)
    entries = [e for e in os.listdir(dest) if not e.startswith(".")]
    return os.path.join(dest, entries[0]) if len(entries) == 1 else dest


def fetch_pypi(name, version, dest):
    work = dest + ".download"
    os.makedirs(work, exist_ok=True)
    result = run([sys.executable, "-m", "pip", "download", "--no-deps", "--no-binary", ":all:",
                  "-d", work, f"{name}=={version}"], check=False)
    archives = [f for f in os.listdir(work) if re.search(r"\.(tar\.gz|tgz|zip|tar\.bz2)$", f)]
    if not archives:
        # Old sdists whose setup.py no longer runs make `pip download` fail after the
        # download; take the same file from the index pip reads.
        index = urllib.request.urlopen(f"https://pypi.org/simple/{name}/", timeout=120).read().decode()
        pattern = re.escape(name).replace("\\-", "[-_.]")
        for match in re.finditer(r'href="([^"#]+)', index):
            url = match.group(1)
            filename = url.rsplit("/", 1)[-1]
            if re.fullmatch(rf"(?i){pattern}-{re.escape(version)}\.(tar\.gz|zip|tgz|tar\.bz2)", filename):
                with open(os.path.join(work, filename), "wb") as out:
                    out.write(urllib.request.urlopen(url, timeout=300).read())
                archives = [filename]
                break
    if not archives:
        raise RuntimeError(f"no sdist for {name}=={version}: {result.stderr[-500:]}")
    return unpack(os.path.join(work, archives[0]), dest)


def fetch_npm(name, version, dest):
    work = dest + ".download"
    os.makedirs(work, exist_ok=True)
    out = run(["npm", "pack", "--silent", f"{name}@{version}"], cwd=work).stdout.strip().splitlines()[-1]
    return unpack(os.path.join(work, out), dest)


def fetch_debian(name, version, dest, patches_upto=None, with_patch=None):
    """`apt-get source` without patches applied; then the Debian patches before
    `patches_upto` (and `with_patch` itself, for the new tree)."""
    work = dest + ".download"
    os.makedirs(work, exist_ok=True)
    dsc = [f for f in os.listdir(work) if f.endswith(".dsc")]
    if not dsc:
        run(["apt-get", "source", "--download-only", "-q", f"{name}={version}"], cwd=work)
        dsc = [f for f in os.listdir(work) if f.endswith(".dsc")]
    os.makedirs(dest, exist_ok=True)
    tree = os.path.join(dest, "src")
    run(["dpkg-source", "--skip-patches", "-x", dsc[0], tree], cwd=work)
    if patches_upto:
        # The Debian series up to the porting patch (all of it when the patch is
        # applied by debian/rules after the series), then the patch itself.
        series_path = os.path.join(tree, "debian", "patches", "series")
        series = [os.path.join("debian", "patches", l.split()[0])
                  for l in open(series_path) if l.strip() and not l.startswith("#")]
        first = patches_upto[0]
        before = series[: series.index(first)] if first in series else series
        for patch in before + (list(with_patch) if with_patch else []):
            run(["patch", "-p1", "-s", "-i", patch], cwd=tree)
    return tree


MIRROR = os.environ.get("DUALPERF_CORPUS_MIRROR", "/work/.mirror")


def git_dir_of(repo):
    """A local git directory holding `repo` ("owner/name")."""
    mirrored = os.path.join(MIRROR, repo.replace("/", "+"), "repo")
    if os.path.isdir(mirrored):
        return mirrored
    clone = os.path.join(CACHE, "git", repo.replace("/", "+"))
    if not os.path.isdir(clone):
        run(["git", "clone", "--bare", "--filter=blob:none", "-q",
             f"https://github.com/{repo}.git", clone])
    return clone


def fetch_git(project, side, dest):
    """The listed files of the commit (new) or its first parent (old)."""
    git = git_dir_of(project["repo"])
    rev = project["commit"] + ("^" if side == "old" else "")
    root = os.path.join(dest, "src")
    for name in project["files"]:
        result = run(["git", "--git-dir", git, "show", f"{rev}:{name}"], check=False)
        if result.returncode != 0:
            continue  # added or deleted by the commit: absent on that side
        path = os.path.join(root, name)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w", encoding="utf-8", errors="replace") as out:
            out.write(result.stdout)
    os.makedirs(root, exist_ok=True)
    return root


def tree_of(project, side):
    """The unpacked old or new tree of `project`, fetching it if needed."""
    dest = os.path.join(CACHE, project["name"], side)
    marker = os.path.join(dest, ".root")
    if os.path.exists(marker):
        return open(marker).read()
    shutil.rmtree(dest, ignore_errors=True)
    source = project["source"]
    if source == "pypi":
        root = fetch_pypi(project["package"], project[side], dest)
    elif source == "npm":
        root = fetch_npm(project["package"], project[side], dest)
    elif source == "debian":
        root = fetch_debian(project["package"], project[side], dest)
    elif source == "git":
        root = fetch_git(project, side, dest)
    elif source == "debian-patch":
        # One porting patch or several consecutive ones of the series.
        patches = project["patch"] if isinstance(project["patch"], list) else [project["patch"]]
        root = fetch_debian(project["package"], project["version"], dest,
                            patches_upto=patches,
                            with_patch=patches if side == "new" else None)
    else:
        raise RuntimeError(f"unknown source {source}")
    if project.get("subdir"):
        root = os.path.join(root, project["subdir"])
    with open(marker, "w") as f:
        f.write(root)
    return root


def read_lines(path):
    with open(path, encoding="utf-8", errors="replace") as f:
        return f.read().splitlines()


def hunks_of(old_path, new_path):
    """The diff's hunks as (first removed line or insertion point, removed
    lines as a list of 1-based numbers, added text)."""
    old = read_lines(old_path)
    new = read_lines(new_path) if os.path.exists(new_path) else []
    matcher = difflib.SequenceMatcher(None, old, new, autojunk=False)
    hunks = []
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            continue
        removed = list(range(i1 + 1, i2 + 1))
        hunks.append({"start": i1 + 1, "removed": removed, "old": old[i1:i2], "new": new[j1:j2]})
    return hunks


def files_of(project):
    return project["files"]


def command_fetch(args):
    for project in load_corpus():
        if args.project and project["name"] not in args.project:
            continue
        for side in ("old", "new"):
            root = tree_of(project, side)
            missing = [f for f in files_of(project) if not os.path.exists(os.path.join(root, f))]
            status = "ok" if not missing else f"MISSING {missing}"
            print(f"{project['name']:<24} {side}: {status}")


def command_hunks(args):
    project = next(p for p in load_corpus() if p["name"] == args.project)
    old_root, new_root = tree_of(project, "old"), tree_of(project, "new")
    files = args.file or files_of(project)
    for name in files:
        expected = set(project["files"].get(name, [])) if isinstance(project["files"], dict) else set()
        for hunk in hunks_of(os.path.join(old_root, name), os.path.join(new_root, name)):
            mark = "*" if hunk["start"] in expected else " "
            print(f"{mark} {name}:{hunk['start']} (-{len(hunk['old'])} +{len(hunk['new'])})")
            for line in hunk["old"][:12]:
                print(f"    - {line}")
            for line in hunk["new"][:12]:
                print(f"    + {line}")


def scan(scanner, root, files):
    cmd = shlex.split(scanner)
    if os.path.exists(cmd[0]):
        cmd[0] = os.path.abspath(cmd[0])
    cmd += files
    result = subprocess.run(cmd, cwd=root, capture_output=True, text=True)
    if result.returncode not in (0, 1):
        raise RuntimeError(f"scanner failed in {root}: {result.stderr[-2000:]}")
    return json.loads(result.stdout)["findings"]


def command_measure(args):
    scanner = args.scanner
    if scanner == DEFAULT_SCANNER:
        run(["cargo", "build", "-q", "--release", "-p", "dualperf-scan", "--example", "scan_json"], cwd=REPO)
        scanner = os.path.join(REPO, "target", "release", "examples", "scan_json")
    for name in ("developers", "tuning", "held-out"):
        if args.set in (None, name):
            measure_set(args, scanner, name)


def outside_labels_of(project):
    """A project's labels of outside findings: (file, line, rule) -> "false" or "real"."""
    labels = {}
    for entry in project.get("outside_labels", []):
        if entry["label"] not in ("false", "real"):
            raise RuntimeError(f"{project['name']}: outside label {entry['label']!r} is neither 'false' nor 'real'")
        labels[(entry["file"], entry["line"], entry["rule"])] = entry["label"]
    return labels


def labelled(stats):
    """The outside warnings/errors as `false/real/unlabelled` counts."""
    return f"{stats['outside_false']}/{stats['outside_real']}/{stats['outside_unlabelled']}"


def measure_set(args, scanner, set_name):
    totals = {}
    details = []
    projects = [p for p in load_corpus() if p.get("set", "developers") == set_name]
    if not projects:
        return
    for project in projects:
        old_root, new_root = tree_of(project, "old"), tree_of(project, "new")
        files = list(project["files"])
        findings = scan(scanner, old_root, files)
        labels = outside_labels_of(project)
        by_file = {}
        for finding in findings:
            by_file.setdefault(finding["path"].removeprefix("./"), []).append(finding)
        for name in files:
            language = language_of(name)
            stats = totals.setdefault(language, {"hunks": 0, "found": 0, "outside": 0, "outside_notes": 0,
                                                 "outside_false": 0, "outside_real": 0, "outside_unlabelled": 0,
                                                 "files": 0, "projects": set()})
            stats["files"] += 1
            stats["projects"].add(project["name"])
            hunks = hunks_of(os.path.join(old_root, name), os.path.join(new_root, name))
            changed = {line for hunk in hunks for line in hunk["removed"]}
            lines_found = {}
            for finding in by_file.get(name, []):
                lines_found.setdefault(finding["line"], []).append(finding)
                if finding["line"] not in changed:
                    label = "note"
                    if finding["severity"] == "note":
                        stats["outside_notes"] += 1
                    else:
                        stats["outside"] += 1
                        label = labels.get((name, finding["line"], finding["rule"]), "unlabelled")
                        stats["outside_" + label] += 1
                    details.append(("outside", project["name"], name, finding["line"], finding["rule"],
                                    finding["severity"], label))
            starts = {hunk["start"]: hunk for hunk in hunks}
            for start in project["files"][name]:
                hunk = starts.get(start)
                if hunk is None or not hunk["removed"]:
                    raise RuntimeError(f"{project['name']}: {name}:{start} is not a hunk with removed lines")
                stats["hunks"] += 1
                hit = [f["rule"] for line in hunk["removed"] for f in lines_found.get(line, [])]
                if hit:
                    stats["found"] += 1
                details.append(("hunk", project["name"], name, start, ",".join(sorted(set(hit))) or "MISSED",
                                hunk["old"][0].strip()[:70]))
    if args.json:
        print(json.dumps({"set": set_name, "languages": {lang: {k: (sorted(v) if isinstance(v, set) else v) for k, v in s.items()}
                          for lang, s in totals.items()}}, indent=2))
        return
    if args.verbose:
        for row in details:
            if row[0] == "hunk" or args.verbose > 1:
                print("  ".join(str(c) for c in row))
        print()
    print(f"set: {set_name}")
    print(f"{'language':<11} {'projects':>8} {'files':>5} {'IPv4 hunks':>10} {'found':>5} {'recall':>7} "
          f"{'outside (warn+err)':>18} {'false/real/unlabelled':>21} {'outside notes':>13}")
    counted = ("hunks", "found", "outside", "outside_false", "outside_real", "outside_unlabelled", "outside_notes",
               "files")
    all_stats = {key: 0 for key in counted}
    all_stats["projects"] = set()
    for language in sorted(totals):
        s = totals[language]
        for key in counted:
            all_stats[key] += s[key]
        all_stats["projects"] |= s["projects"]
        recall = f"{100 * s['found'] / s['hunks']:.0f} %" if s["hunks"] else "-"
        print(f"{language:<11} {len(s['projects']):>8} {s['files']:>5} {s['hunks']:>10} {s['found']:>5} "
              f"{recall:>7} {s['outside']:>18} {labelled(s):>21} {s['outside_notes']:>13}")
    s = all_stats
    recall = f"{100 * s['found'] / s['hunks']:.0f} %" if s["hunks"] else "-"
    print(f"{'all':<11} {len(s['projects']):>8} {s['files']:>5} {s['hunks']:>10} {s['found']:>5} "
          f"{recall:>7} {s['outside']:>18} {labelled(s):>21} {s['outside_notes']:>13}")
    print()


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)
    fetch = sub.add_parser("fetch", help="download and unpack every project")
    fetch.add_argument("project", nargs="*")
    hunks = sub.add_parser("hunks", help="print a project's hunks, expected ones starred")
    hunks.add_argument("project")
    hunks.add_argument("file", nargs="*")
    measure = sub.add_parser("measure", help="scan the old versions and print recall per language")
    measure.add_argument("--scanner", default=DEFAULT_SCANNER,
                         help="command that prints `dualperf scan --json` for the paths appended to it")
    measure.add_argument("--json", action="store_true")
    measure.add_argument("--set", choices=["developers", "tuning", "held-out"],
                         help="measure one set only (default: all, reported apart)")
    measure.add_argument("-v", "--verbose", action="count", default=0,
                         help="list every hunk (and with -vv every outside finding)")
    args = parser.parse_args()
    {"fetch": command_fetch, "hunks": command_hunks, "measure": command_measure}[args.command](args)


if __name__ == "__main__":
    main()
