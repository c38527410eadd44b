"""Docs and comments that cannot drift: what they name exists, and they point nowhere outside the repository.

Checked text: README.md and docs/*.md whole, and the comments and docstrings of every Python file (whose other
strings are checked for references outside the repository only). In it, each
backticked span is judged by its shape:

- `make <target>`: the Makefile has that target;
- a path (`local/run.py`, `tests/unit/`): checked when its last part has a file extension or its first part is a
  folder of ours; it must exist under the repository root, the layer (functions/layer/python), the layer's
  `ddbguard` package or functions/ (Lambda's view); files made by running things (cdk.out, .local) pass;
- a path followed by an attribute (`tests/support/faults.transaction_conflicts`): that file defines the name;
- a dotted name (`ddbguard.store.keys`, `keys.lock_keys`): checked when its first part is one of our modules, by
  dotted path or by file name (so `json.dumps` or `response.status` pass); the module defines the attribute;
- a call (`reread_and_retry()`), and in comments and docstrings also a bare snake_case name (`CLIENT_RETRIES`):
  it occurs in the repository's code (comments and docstrings do not count), so a renamed function cannot live
  on in a comment (Markdown's bare names are often other tools' words, such as an ELF header field);
- a table key (`ACCT#<accountId>`, `UNIQ#EMAIL#…`): its first prefix (`ACCT#`) occurs in a string of the code, or
  is one an entity declaration derives from its kind (`Entity("team", ...)`: `TEAM#`);
- other spans with spaces, placeholders or marks (`<id>`, `{x}`, `...`) are commands, routes or values: skipped.

Outside backticks too, in comments, docstrings and Markdown: a path to a Python file (`ddbguard/store/keys.py`) or
a dotted name rooted in the layer's packages (`ddbguard.domain.pseudonyms`) must exist, so a moved module cannot
live on in a sentence that forgot its backticks. A Markdown link to a file (`[decisions](decisions.md)`) must reach
one, relative to the page.

Module lists: a list that says it names every module of a folder is marked, in Markdown with
`<!-- modules: <folder> -->` before its paragraph, in a Mermaid diagram with `%% modules: <folder>` before its
line. The list must name every module of that folder (its Python files and its packages; `<folder>/*.py` for the
files alone, `<folder>/*/` for the packages alone), and each name it gives in a diagram, or backticked in a
paragraph, must be a module of ours. The documents in MODULE_LISTS must carry one for each folder named there,
so a new module fails until the page that lays out its folder names it; and an unmarked paragraph or diagram line
(README.md, docs/, tests/README.md) that names most of a layer folder's modules must be marked.

And nothing refers to a document the reader of the repository cannot open: no phrase of OUTSIDE below (the rulebook
or tracker items by name), and every http(s) URL is an example one (localhost, 127.0.0.1, a host under example.com,
or ending in .example, .invalid or .test, or holding a `{placeholder}` or `<placeholder>`).

And the figures `make bench` measures (ratios written with two decimals, such as `1.52x`, and counts such as
`14 of 21 handlers`) live in one place, bench/results.md, which each run rewrites: docs/*.md name its section
instead of quoting them, so a later run cannot leave them stale. (README's Benchmarks summary is the one other place.)

Exit status 1 and one line per finding (`file:line: message`) when anything fails.
"""

from __future__ import annotations

import argparse
import ast
import io
import os
import re
import sys
import tokenize
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
# Where a path or module named in the text may live (Lambda's view: the layer and functions/ are on sys.path).
SEARCH_ROOTS = ("", "functions/layer/python", "functions/layer/python/ddbguard", "functions")
PYTHON_DIRS = ("functions", "infra", "local", "bench", "tests", "scripts")
SKIPPED_DIRS = {".venv", "node_modules", "cdk.out", ".local", "__pycache__", ".git", "snapshots", "events"}
# Made by running the service or its tools, so they exist only after a run.
GENERATED = ("cdk.out", ".local", "node_modules", ".venv", "ddbguard_client")

BARE_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9]*(_[A-Za-z0-9]+)+$")
BACKTICKED = re.compile(r"(?<!`)`([^`\n]+)`(?!`)")
FILE_EXTENSION = re.compile(r"\.(py|md|json|ya?ml|toml|txt|sh|cfg|jar|js|html|css|csv|tsv|lock)$")
PATH_LIKE = re.compile(r"^\.?[A-Za-z0-9_.\-]+(/[A-Za-z0-9_.\-]*)+$")
DOTTED = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)+$")
KEY_PREFIX = re.compile(r"^([A-Z][A-Z_]*#)")
CALL = re.compile(r"^([A-Za-z_][A-Za-z0-9_.]*)\(\)$")
MAKE = re.compile(r"^make ([a-z][a-z0-9-]*)\b")
# A path to a Python file or a dotted layer name written without backticks (inside backticks the rules above apply).
BARE_PATH = re.compile(r"(?<![\w/.`<{-])((?:[A-Za-z0-9_.-]+/)+[A-Za-z0-9_]+\.py)\b(?!`)")
BARE_DOTTED = re.compile(r"(?<![\w.`/])(ddbguard(?:_api)?(?:\.[A-Za-z_][A-Za-z0-9_]*)+)(?![\w`(])")
# A Markdown link to a file of the repository: [text](relative/path#anchor).
RELATIVE_LINK = re.compile(r"\]\((?!https?:|mailto:|#)([^)\s#]+)(?:#[^)\s]*)?\)")
MODULE_LIST_MARK = re.compile(r"^\s*(?:<!--|%%)\s*modules:\s*(\S+?)\s*(?:-->)?\s*$")
MERMAID_LABEL = re.compile(r'\["([^"]*)"\]')
# Documents that lay out the layer, and the folders each must carry a complete module list of.
LAYER_FOLDER = "functions/layer/python"
MODULE_LISTS = {
    "docs/architecture.md": (
        f"{LAYER_FOLDER}/ddbguard_api/http",
        f"{LAYER_FOLDER}/ddbguard_api/models",
        f"{LAYER_FOLDER}/ddbguard/domain",
        f"{LAYER_FOLDER}/ddbguard/guards",
        f"{LAYER_FOLDER}/ddbguard/store",
        f"{LAYER_FOLDER}/ddbguard/*.py",
        "functions/*/",
    ),
}
URL = re.compile(r"https?://[^\s)\"'`>\],}\[]+(?:\}[^\s)\"'`>\],\[]*)?")
EXAMPLE_HOST = re.compile(
    r"^(localhost|127\.0\.0\.1|0\.0\.0\.0|\[::1\]|(.+\.)?example\.(com|org|net)|.+\.(example|invalid|test|localhost))"
    r"(:\d+)?$"
)
OUTSIDE = re.compile(
    r"\b(the|our|this) contract\b|\bcontract (section|§|item|rule)|\bcontract\.md\b|\bfacts\.md\b|\blayout\.md\b"
    r"|\b(the|this|that|an|our) issue\b|\bissues? #?\d+\b|/work/shared|\bthis (\d+-core |shared )+machine\b",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class Finding:
    path: Path  # relative to the checked root
    line: int
    message: str

    def __str__(self) -> str:
        return f"{self.path}:{self.line}: {self.message}"


@dataclass(frozen=True)
class Passage:
    """A piece of checked text: a whole Markdown file, one comment or one docstring."""

    path: Path
    line: int
    text: str


# --- what the repository has ---------------------------------------------------------------------------------


class Repository:
    def __init__(self, root: Path) -> None:
        self.root = root
        self.python_files = sorted(_python_files(root))
        self.modules: dict[str, Path] = {}  # dotted name -> file, from every search root
        for file in self.python_files:
            for base in SEARCH_ROOTS:
                try:
                    relative = file.relative_to(root / base) if base else file.relative_to(root)
                except ValueError:
                    continue
                parts = list(relative.with_suffix("").parts)
                if parts[-1] == "__init__":
                    parts.pop()
                if parts:
                    self.modules[".".join(parts)] = file
        self.by_file_name: dict[str, list[Path]] = {}
        for name, file in self.modules.items():
            self.by_file_name.setdefault(name.rsplit(".", 1)[-1], []).append(file)
        self.top_level = {name.split(".")[0] for name in self.modules}
        self._names: dict[Path, set[str]] = {}
        self.defined = set().union(*(self.names_in(file) for file in self.python_files))
        self.make_targets = _make_targets(root / "Makefile")
        self.file_names = _file_names(root)
        self.passages = {file: list(python_passages(file)) for file in self.python_files}
        self.code_words = set().union(*(_code_words(file, self.passages[file]) for file in self.python_files))
        self.key_prefixes = {word for word in self.code_words if word.endswith("#")}
        self.key_prefixes |= set().union(*(_derived_key_prefixes(file) for file in self.python_files))

    def names_in(self, file: Path) -> set[str]:
        """Every name a module defines or imports, at any depth (functions, classes, methods, constants)."""
        if file not in self._names:
            tree = ast.parse(file.read_text(encoding="utf-8"))
            names: set[str] = set()
            for node in ast.walk(tree):
                if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                    names.add(node.name)
                elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
                    names.add(node.id)
                elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
                    names.add(node.target.id)
                elif isinstance(node, ast.Import | ast.ImportFrom):
                    names.update((alias.asname or alias.name).split(".")[0] for alias in node.names)
                elif isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store):
                    names.add(node.attr)
            self._names[file] = names
        return self._names[file]

    def path_exists(self, text: str) -> bool:
        cleaned = text.rstrip("/")
        if cleaned.startswith(GENERATED) or any(f"/{part}" in cleaned for part in GENERATED):
            return True
        return any((self.root / base / cleaned).exists() for base in SEARCH_ROOTS)

    def find_file(self, relative: str) -> Path | None:
        for base in SEARCH_ROOTS:
            if (self.root / base / relative).is_file():
                return self.root / base / relative
        return None

    def is_our_folder(self, name: str) -> bool:
        return name not in ("", ".", "..") and any((self.root / base / name).is_dir() for base in SEARCH_ROOTS)

    def module_attribute_exists(self, dotted: str) -> bool | None:
        """True or False for a dotted name rooted in one of our modules, None when it names none of ours."""
        parts = dotted.split(".")
        for split in range(len(parts), 0, -1):
            module, attributes = ".".join(parts[:split]), parts[split:]
            files = [self.modules[module]] if module in self.modules else []
            if not files and split == 1:
                files = self.by_file_name.get(module, [])
            if files:
                return not attributes or any(attributes[0] in self.names_in(file) for file in files)
        return None


def _python_files(root: Path) -> Iterator[Path]:
    yield from (root / name for name in ("app.py",) if (root / name).exists())
    for directory in PYTHON_DIRS:
        for file in (root / directory).rglob("*.py"):
            if not SKIPPED_DIRS.intersection(file.relative_to(root).parts):
                yield file


def _file_names(root: Path) -> set[str]:
    """The name of every file of ours, at any depth (a bare `demo.sh` or `results.md` may sit anywhere)."""
    names: set[str] = set()
    for _folder, subfolders, files in os.walk(root):
        subfolders[:] = [name for name in subfolders if name not in SKIPPED_DIRS and name not in GENERATED]
        names.update(files)
    return names


def _derived_key_prefixes(file: Path) -> set[str]:
    """`TEAM#` for each `Entity("team", ...)` in `file`: the partition-key prefix the declaration derives by default."""
    prefixes = set()
    for node in ast.walk(ast.parse(file.read_text(encoding="utf-8"))):
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id == "Entity"
            and node.args
            and isinstance(node.args[0], ast.Constant)
            and isinstance(node.args[0].value, str)
        ):
            prefixes.add(f"{node.args[0].value.upper()}#")
    return prefixes


def _code_words(file: Path, passages: list[Passage]) -> set[str]:
    """Every identifier in the code of `file`, and every word inside its string literals, docstrings excepted."""
    source = file.read_text(encoding="utf-8")
    docstrings = {(p.line, 0) for p in passages if not p.text.startswith("#")}
    words: set[str] = set()
    for token in tokenize.generate_tokens(io.StringIO(source).readline):
        if token.type == tokenize.NAME:
            words.add(token.string)
        elif token.type == tokenize.STRING and (token.start[0], 0) not in docstrings:
            words.update(re.findall(r"[A-Za-z_][A-Za-z0-9_]*#?", token.string))
    return words


def _make_targets(makefile: Path) -> set[str]:
    text = makefile.read_text(encoding="utf-8")
    return set(re.findall(r"^([a-z][a-z0-9-]*)\s*:(?!=)", text, flags=re.MULTILINE))


# --- the text to check ---------------------------------------------------------------------------------------


def markdown_passages(root: Path) -> Iterator[Passage]:
    for file in [root / "README.md", *sorted((root / "docs").rglob("*.md")), root / "tests" / "README.md"]:
        if file.exists():
            yield Passage(file, 1, file.read_text(encoding="utf-8"))


def python_passages(file: Path) -> Iterator[Passage]:
    """Each comment and each docstring of `file`."""
    source = file.read_text(encoding="utf-8")
    for token in tokenize.generate_tokens(io.StringIO(source).readline):
        if token.type == tokenize.COMMENT:
            yield Passage(file, token.start[0], token.string)
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            first = node.body[0] if node.body else None
            value = first.value.value if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant) else None
            if first is not None and isinstance(value, str):
                yield Passage(file, first.lineno, value)


# --- the rules -----------------------------------------------------------------------------------------------


def check_passage(passage: Passage, repo: Repository) -> Iterator[Finding]:
    for offset, line in enumerate(passage.text.splitlines()):
        number = passage.line + offset
        for match in OUTSIDE.finditer(line):
            yield Finding(passage.path, number, f"refers outside the repository: {match.group(0)!r}")
        for url in URL.findall(line):
            if not _is_example_url(url):
                yield Finding(passage.path, number, f"links outside the repository: {url}")
        for span in BACKTICKED.findall(line):
            problem = check_name(span.strip(), repo, markdown=passage.path.suffix == ".md")
            if problem:
                yield Finding(passage.path, number, problem)
        outside_backticks = BACKTICKED.sub("", line)
        if passage.path.suffix == ".md":
            for target in RELATIVE_LINK.findall(outside_backticks):
                if not (passage.path.parent / target).exists():
                    yield Finding(passage.path, number, f"link to {target}: no such file")
        for path in BARE_PATH.findall(outside_backticks):
            if not repo.path_exists(path) and not path.startswith(("http", "www.")):
                yield Finding(passage.path, number, f"{path}: no such path")
        for dotted in BARE_DOTTED.findall(outside_backticks):
            if repo.module_attribute_exists(dotted) is False:
                yield Finding(passage.path, number, f"{dotted}: no such module or attribute")


# --- module lists --------------------------------------------------------------------------------------------


def modules_of(root: Path, folder: str) -> set[str] | None:
    """The module names a folder holds: its .py files (but __init__) and its packages; None if it is no folder."""
    files_only, packages_only = folder.endswith("/*.py"), folder.endswith("/*/")
    directory = root / folder.removesuffix("/*.py").removesuffix("/*/").rstrip("/")
    if not directory.is_dir():
        return None
    names: set[str] = set()
    if not packages_only:
        names |= {file.stem for file in directory.glob("*.py") if file.stem != "__init__"}
    if not files_only:
        names |= {sub.name for sub in directory.iterdir() if (sub / "__init__.py").is_file()}
    return names


def listed_names(block: str, *, mermaid: bool) -> set[str]:
    """The names a list gives: each ` - ` or `<br/>` separated part of a diagram label, or each backticked word."""
    if mermaid:
        parts = (
            part
            for label in MERMAID_LABEL.findall(block)
            for line in label.split("<br/>")
            for part in line.split(" - ")
        )
        return {part.strip() for part in parts if re.fullmatch(r"[a-z_][a-z0-9_]*", part.strip())}
    return {span for span in BACKTICKED.findall(block) if re.fullmatch(r"[a-z_][a-z0-9_]*", span)}


def module_list_findings(root: Path, file: Path, repo: Repository) -> Iterator[Finding]:
    """Each marked module list names every module of its folder, and nothing that is no module of ours."""
    lines = file.read_text(encoding="utf-8").splitlines()
    marked: set[str] = set()
    covered: set[int] = set()  # lines inside a marked list
    for index, line in enumerate(lines):
        mark = MODULE_LIST_MARK.match(line)
        if not mark:
            continue
        folder, mermaid = mark.group(1), line.lstrip().startswith("%%")
        marked.add(folder)
        end = (
            index + 2
            if mermaid
            else next((j for j in range(index + 1, len(lines)) if not lines[j].strip()), len(lines))
        )
        covered.update(range(index + 1, end))
        names = modules_of(root, folder)
        if names is None:
            yield Finding(file, index + 1, f"module list of {folder}: no such folder")
            continue
        if mermaid:
            block = lines[index + 1] if index + 1 < len(lines) else ""
        else:
            end = next((j for j in range(index + 1, len(lines)) if not lines[j].strip()), len(lines))
            block = "\n".join(lines[index + 1 : end])
        words = set(re.findall(r"[A-Za-z_][A-Za-z0-9_]*", block))
        for name in sorted(names - words):
            yield Finding(file, index + 2, f"module list of {folder} misses `{name}`")
        known = (
            names
            | set(repo.by_file_name)
            | repo.top_level
            | {sub.name for sub in (root / "functions").glob("*/") if (sub / "__init__.py").is_file()}
        )
        for name in sorted(listed_names(block, mermaid=mermaid) - (names if mermaid else known)):
            yield Finding(file, index + 2, f"module list of {folder} names `{name}`, which is not one of its modules")
    wanted = MODULE_LISTS.get(file.relative_to(root).as_posix(), ())
    for folder in wanted:
        if folder not in marked:
            yield Finding(file, 1, f"no module list of {folder} (mark one with <!-- modules: {folder} -->)")
    yield from _unmarked_list_findings(root, file, lines, covered)


def _unmarked_list_findings(root: Path, file: Path, lines: list[str], covered: set[int]) -> Iterator[Finding]:
    """A paragraph or diagram line that names most of a layer folder's modules is a module list: it must be marked,
    so that it is held complete."""
    folders = {folder: modules_of(root, folder) or set() for folder in MODULE_LISTS.get("docs/architecture.md", ())}
    start = 0
    blocks: list[tuple[int, str, bool]] = []
    for index, line in enumerate([*lines, ""]):
        if MERMAID_LABEL.search(line):
            blocks.append((index, line, True))
        if not line.strip():
            blocks.append((start, "\n".join(lines[start:index]), False))
            start = index + 1
    for first, block, mermaid in blocks:
        block_lines = range(first, first + 1) if mermaid else range(first, first + block.count("\n") + 1)
        if covered.intersection(block_lines):
            continue
        named = listed_names(block, mermaid=mermaid) | {
            span.removesuffix(".py") for span in BACKTICKED.findall(block) if re.fullmatch(r"[a-z_]+\.py", span)
        }
        for folder, names in folders.items():
            if len(names & named) >= 4 and len(names & named) * 4 >= len(names) * 3:
                yield Finding(
                    file,
                    first + 1,
                    f"names most modules of {folder}: mark it <!-- modules: {folder} --> and complete it",
                )


def check_name(span: str, repo: Repository, *, markdown: bool = False) -> str | None:
    """What is wrong with one backticked name, or None (also for spans that are no name of ours)."""
    if make := MAKE.match(span):
        target = make.group(1)
        return None if target in repo.make_targets else f"`make {target}`: no such make target"
    if key := KEY_PREFIX.match(span):
        prefix = key.group(1)
        return None if prefix in repo.key_prefixes else f"`{span}`: no key in the code starts with {prefix}"
    if " " in span or any(mark in span for mark in "<>{}*$…#:=,'\"[]|") or span.startswith(("/", "-", "~", "..")):
        return None  # a command, a placeholder, a key, a route or an option: not a name to look up
    if call := CALL.match(span):
        name = call.group(1)
        if "." in name:
            found = repo.module_attribute_exists(name)
            return None if found is not False else f"`{span}`: no such function"
        return None if name in repo.code_words else f"`{span}`: no function of that name in the code"
    if "/" in span:
        if repo.path_exists(span):
            return None
        head, dot, attribute = span.rpartition(".")
        module = repo.find_file(f"{head}.py") if dot and "/" not in attribute else None
        if module is not None:
            return None if attribute in repo.names_in(module) else f"`{span}`: {head}.py has no `{attribute}`"
        last, first = span.rstrip("/").rsplit("/", 1)[-1], span.split("/", 1)[0]
        looks_like_path = bool(FILE_EXTENSION.search(last)) or repo.is_our_folder(first)
        return f"`{span}`: no such path" if looks_like_path and PATH_LIKE.match(span) else None
    if BARE_NAME.match(span) and not markdown:
        return None if span in repo.code_words else f"`{span}`: no such name in the code"
    if FILE_EXTENSION.search(span) and re.fullmatch(r"[A-Za-z0-9_.\-]+", span):
        return None if span in repo.file_names else f"`{span}`: no such file"
    if DOTTED.match(span) and span.split(".")[0] in repo.top_level | set(repo.by_file_name):
        found = repo.module_attribute_exists(span)
        return None if found is not False else f"`{span}`: no such module or attribute"
    return None


def _is_example_url(url: str) -> bool:
    if any(mark in url for mark in "{<$"):
        return True
    host = url.split("://", 1)[1].split("/", 1)[0].split("?", 1)[0].rstrip(".,;:}")
    return bool(EXAMPLE_HOST.match(host))


def string_findings(file: Path) -> Iterator[Finding]:
    """Phrases of OUTSIDE in the code's other strings: messages, reasons and descriptions reach users too."""
    source = file.read_text(encoding="utf-8")
    for token in tokenize.generate_tokens(io.StringIO(source).readline):
        if token.type == tokenize.STRING:
            for match in OUTSIDE.finditer(token.string):
                yield Finding(file, token.start[0], f"refers outside the repository: {match.group(0)!r}")


MEASURED_FIGURE = re.compile(r"\b\d+\.\d{2}x\b|\b\d+ of \d+ (?:handlers|functions|rows)\b")


def measured_figure_findings(root: Path) -> Iterator[Finding]:
    """Bench-measured figures quoted in docs/*.md (bench/results.md holds them; see the module's docstring)."""
    for file in sorted((root / "docs").rglob("*.md")):
        for number, line in enumerate(file.read_text(encoding="utf-8").splitlines(), start=1):
            for match in MEASURED_FIGURE.finditer(line):
                yield Finding(
                    file,
                    number,
                    f"a figure `make bench` measures ({match.group(0)}): name its section of bench/results.md instead",
                )


# The checker and its tests spell the phrases it looks for.
SPELLS_THE_PHRASES = ("scripts/check_docs.py", "tests/unit/test_check_docs.py")


def check_repository(root: Path = ROOT) -> list[Finding]:
    repo = Repository(root)
    passages = [*markdown_passages(root), *(p for file in repo.python_files for p in repo.passages[file])]
    strings = [
        finding
        for file in repo.python_files
        if file.relative_to(root).as_posix() not in SPELLS_THE_PHRASES
        for finding in string_findings(file)
    ]
    return [
        Finding(finding.path.relative_to(root), finding.line, finding.message)
        for finding in [
            *(f for passage in passages for f in check_passage(passage, repo)),
            *strings,
            *measured_figure_findings(root),
            *(
                f
                for passage in passages
                if passage.path.suffix == ".md"
                for f in module_list_findings(root, passage.path, repo)
            ),
        ]
    ]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--root", type=Path, default=ROOT)
    args = parser.parse_args(argv)
    findings = check_repository(args.root)
    for finding in findings:
        print(finding)
    summary = f"{len(findings)} findings" if findings else "every name exists, nothing points outside"
    print(f"ddbguard docs: {summary}", file=sys.stderr)
    return 1 if findings else 0


if __name__ == "__main__":
    sys.exit(main())
