"""The example service (examples/service/) is a team's own service on the published package: it names nothing of
this repository's source tree, and what a team writes for its one entity stays short.

`make example` runs its own tests and synthesizes its stack from the built wheel; this checks its sources.
"""

from __future__ import annotations

import ast
import io
import tokenize

from local.paths import ROOT

EXAMPLE = ROOT / "examples" / "service"
# What a team writes for one entity: its declaration, its handlers, and the stack's wiring of them (the stack's
# __init__: GuardedTable, the function, the entity's API routes). The API's own scaffolding (authorizer, logs, the
# cdk-nag acknowledgements of a stack the team already has) is counted apart (`_api`).
ENTITY_FILES = ("src/service/project.py", "src/service/api.py")
WIRING = ("app.py", "ProjectsStack", "__init__")
GOAL_LINES = 40
# The library's packages (from the wheel); the repository's own code is none of these.
LIBRARY = ("ddbguard", "ddbguard_api", "ddbguard_jobs", "ddbguard_cdk")
REPOSITORY_ONLY = ("routes", "infra", "local", "tests", "scripts", "bench", "functions", "examples")


def code_lines(source: str, first: int = 1, last: int | None = None) -> int:
    """Lines holding code between `first` and `last`: no blank line, comment or docstring."""
    tree = ast.parse(source)
    docstrings = {
        line
        for node in ast.walk(tree)
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef)
        and node.body
        and isinstance(node.body[0], ast.Expr)
        and isinstance(node.body[0].value, ast.Constant)
        and isinstance(node.body[0].value.value, str)
        for line in range(node.body[0].lineno, (node.body[0].end_lineno or node.body[0].lineno) + 1)
    }
    coded = {
        line
        for token in tokenize.generate_tokens(io.StringIO(source).readline)
        if token.type not in (tokenize.COMMENT, tokenize.NL, tokenize.NEWLINE, tokenize.INDENT, tokenize.DEDENT)
        and token.type != tokenize.ENDMARKER
        for line in range(token.start[0], token.end[0] + 1)
    }
    return len({line for line in coded - docstrings if line >= first and (last is None or line <= last)})


def wiring_lines() -> int:
    path, class_name, method = WIRING
    source = (EXAMPLE / path).read_text(encoding="utf-8")
    (cls,) = [n for n in ast.parse(source).body if isinstance(n, ast.ClassDef) and n.name == class_name]
    (init,) = [n for n in cls.body if isinstance(n, ast.FunctionDef) and n.name == method]
    return code_lines(source, init.lineno, init.end_lineno)


def test_a_team_writes_at_most_40_lines_for_one_entity_with_uniqueness_versioning_and_keyed_idempotency():
    entity = sum(code_lines((EXAMPLE / name).read_text(encoding="utf-8")) for name in ENTITY_FILES)
    total = entity + wiring_lines()
    assert entity > 20 and wiring_lines() > 5, "the count reads the files it should"
    assert total <= GOAL_LINES, f"{total} lines for one entity (declaration, handlers, wiring): the goal is 40"


def test_the_count_skips_docstrings_comments_and_blank_lines():
    source = '"""Doc\n\nstring."""\n\n# a comment\nx = 1  # trailing\n\ndef f() -> None:\n    """Doc."""\n    return\n'
    assert code_lines(source) == 3


def test_the_example_imports_the_library_and_nothing_of_this_repository():
    imported: set[str] = set()
    for path in EXAMPLE.rglob("*.py"):
        if any(part in (".venv", "node_modules", "cdk.out", ".local") for part in path.parts):
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                imported.add(node.module)
                if node.module.split(".")[0] in LIBRARY:
                    private = [alias.name for alias in node.names if alias.name.startswith("_")]
                    assert not private, f"{path.relative_to(ROOT)} imports private names {private}"
            elif isinstance(node, ast.Import):
                imported.update(alias.name for alias in node.names)
    roots = {name.split(".")[0] for name in imported}
    assert {"ddbguard", "ddbguard_api", "ddbguard_cdk", "service"} <= roots
    assert not roots & set(REPOSITORY_ONLY), sorted(roots & set(REPOSITORY_ONLY))


def test_the_example_installs_the_built_wheel_never_the_source_tree():
    requirements = (EXAMPLE / "requirements.txt").read_text(encoding="utf-8")
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    assert "functions/layer" not in requirements and "-e " not in requirements
    assert '"$$(ls dist/*.whl)[cdk,edge]"' in makefile
    assert not any(EXAMPLE.glob("*.pth")) and "PYTHONPATH=src " in (EXAMPLE / "cdk.json").read_text(encoding="utf-8")
