"""The docs checker (scripts/check_docs.py): passes on the repository, fails on each kind of stale passage."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from scripts import check_docs

ROOT = Path(__file__).resolve().parents[2]

MODULE = '''"""Keys for `ACCT#<id>` items."""

CLIENT_RETRIES = {"mode": "standard"}
PREFIX = "ACCT#"


def lock_key(value: str) -> str:
    # Built by `lock_key()`, retried as `CLIENT_RETRIES` says.
    return "UNIQ#" + value
'''


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """A small repository that passes: a Makefile, a README, docs and one layer module."""
    (tmp_path / "functions/layer/python/ddbguard/store").mkdir(parents=True)
    (tmp_path / "functions/layer/python/ddbguard/__init__.py").write_text("")
    (tmp_path / "functions/layer/python/ddbguard/store/__init__.py").write_text("")
    (tmp_path / "functions/layer/python/ddbguard/store/keys.py").write_text(MODULE)
    (tmp_path / "docs").mkdir()
    (tmp_path / "Makefile").write_text("run: install\n\t@echo run\n\ninstall:\n\t@true\n")
    (tmp_path / "README.md").write_text(
        "`make run` serves http://127.0.0.1:3000 (try https://app.example.com); keys live in\n"
        "`ddbguard/store/keys.py` (`keys.lock_key`, `ddbguard.store.keys.PREFIX`), items as `ACCT#<id>`.\n"
    )
    (tmp_path / "docs" / "guide.md").write_text("See [the README](../README.md) and `store/keys.py`.\n")
    return tmp_path


def findings(root: Path) -> list[str]:
    return [str(finding) for finding in check_docs.check_repository(root)]


def test_the_repository_passes() -> None:
    assert findings(ROOT) == []


def test_a_small_clean_repository_passes(repo: Path) -> None:
    assert findings(repo) == []


def test_a_planted_stale_path_fails(repo: Path) -> None:
    (repo / "docs" / "guide.md").write_text("Keys are built in `ddbguard/keys.py`.\n")
    assert findings(repo) == ["docs/guide.md:1: `ddbguard/keys.py`: no such path"]


def test_a_stale_path_in_the_real_tree_fails(tmp_path: Path) -> None:
    """The repository itself, with one planted stale path, fails on that path alone."""
    copy = tmp_path / "repo"
    skipped = shutil.ignore_patterns(".venv", "node_modules", "cdk.out", ".local", ".git", "__pycache__", "*_cache")
    shutil.copytree(ROOT, copy, ignore=skipped)
    readme = copy / "README.md"
    readme.write_text(readme.read_text() + "\nThe keys: `functions/layer/python/ddbguard/keys.py`.\n")
    found = findings(copy)
    assert found != [] and all("keys.py" in line for line in found), found


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("`make seed`", "`make seed`: no such make target"),
        ("`keys.balance_key`", "`keys.balance_key`: no such module or attribute"),
        ("`ddbguard.store.writes`", "`ddbguard.store.writes`: no such module or attribute"),
        ("`functions/layer/python/ddbguard/store/keys.missing`", "store/keys.py has no `missing`"),
        ("`reread_and_retry()`", "`reread_and_retry()`: no function of that name in the code"),
        ("`IDEMPOTENCY#<fn>`", "no key in the code starts with IDEMPOTENCY#"),
        ("as the contract says", "refers outside the repository: 'the contract'"),
        ("see contract section 4", "refers outside the repository: 'contract section'"),
        ("the issue allowed it", "refers outside the repository: 'the issue'"),
        ("built for issue 10", "refers outside the repository: 'issue 10'"),
        ("on this 2-core shared machine", "refers outside the repository: 'this 2-core shared machine'"),
        ("details at https://docs.aws.amazon.com/x", "links outside the repository: https://docs.aws.amazon.com/x"),
        ("cold init is 1.52x of boto3", "a figure `make bench` measures (1.52x)"),
        ("14 of 21 handlers meet it", "a figure `make bench` measures (14 of 21 handlers)"),
        ("keys are built in ddbguard/keys.py, as before", "ddbguard/keys.py: no such path"),
        ("logged as keyed hashes (ddbguard.pseudonyms)", "ddbguard.pseudonyms: no such module or attribute"),
        ("see [the decisions](decisions.md#tables)", "link to decisions.md: no such file"),
    ],
)
def test_each_rule_fails_on_its_stale_passage(repo: Path, text: str, expected: str) -> None:
    (repo / "docs" / "guide.md").write_text(f"{text}\n")
    found = findings(repo)
    assert len(found) == 1 and found[0].startswith("docs/guide.md:1: ") and expected in found[0], found


def test_comments_and_docstrings_are_checked_and_strings_for_outside_references(repo: Path) -> None:
    module = repo / "functions/layer/python/ddbguard/store/keys.py"
    module.write_text(
        MODULE + '\n\ndef stale() -> str:\n    """Retried per `transaction_attempts`."""\n'
        "    # as the contract says\n"
        '    return "see contract section 4, or `no_such_name`"\n'
    )
    found = findings(repo)
    assert any("`transaction_attempts`: no such name in the code" in line for line in found), found
    assert any("refers outside the repository: 'the contract'" in line for line in found), found
    # A message, reason or description in code reaches users: it may not point outside the repository either.
    assert any("refers outside the repository: 'contract section'" in line for line in found), found
    assert not any("no_such_name" in line for line in found), found  # names in code strings are not judged


def test_placeholders_routes_commands_and_other_tools_names_pass(repo: Path) -> None:
    (repo / "docs" / "guide.md").write_text(
        "`/accounts/{accountId}`, `.../capture`, `application/json`, `Api/RestApi/Resource`, `json.dumps`,"
        " `e_machine`, `make run PORT=3001`, `https://{apiId}.execute-api.{region}.amazonaws.com/v1`,"
        " `cdk.out/manifest.json`, `.local/run.json`, `--checks all`\n"
    )
    assert findings(repo) == []


def test_a_key_prefix_an_entity_derives_from_its_kind_passes(repo: Path) -> None:
    (repo / "docs" / "teams.md").write_text("Teams are stored as `TEAM#<owner tag>#<teamId>`.\n")
    assert findings(repo) == ["docs/teams.md:1: `TEAM#<owner tag>#<teamId>`: no key in the code starts with TEAM#"]
    (repo / "functions/layer/python/ddbguard/teams.py").write_text('TEAM = Entity("team", public=("teamId",))\n')
    assert findings(repo) == []


def test_unbackticked_paths_and_layer_names_that_exist_pass(repo: Path) -> None:
    (repo / "docs" / "guide.md").write_text(
        "Keys: ddbguard/store/keys.py and ddbguard.store.keys.lock_key; a file made by a run: cdk.out/app.py.\n"
    )
    assert findings(repo) == []


def test_a_module_list_names_every_module_of_its_folder(repo: Path) -> None:
    store = repo / "functions/layer/python/ddbguard/store"
    (store / "reads.py").write_text('"""Reads."""\n')
    (repo / "docs" / "layout.md").write_text(
        "<!-- modules: functions/layer/python/ddbguard/store -->\nThe store: `keys` and `reads`.\n\n"
        "```mermaid\nflowchart TB\n    %% modules: functions/layer/python/ddbguard/store\n"
        '    store["store/<br/>keys - reads"]\n```\n'
    )
    assert findings(repo) == []
    (store / "writes.py").write_text('"""Writes."""\n')
    assert findings(repo) == [
        "docs/layout.md:2: module list of functions/layer/python/ddbguard/store misses `writes`",
        "docs/layout.md:7: module list of functions/layer/python/ddbguard/store misses `writes`",
    ]


def test_a_module_list_that_names_a_moved_module_or_folder_fails(repo: Path) -> None:
    (repo / "docs" / "layout.md").write_text(
        "```mermaid\nflowchart TB\n    %% modules: functions/layer/python/ddbguard/store\n"
        '    store["store/<br/>keys - plan"]\n    %% modules: functions/layer/python/ddbguard/gone\n'
        '    gone["gone/<br/>x"]\n```\n'
    )
    assert findings(repo) == [
        "docs/layout.md:4: module list of functions/layer/python/ddbguard/store names `plan`, which is not one of its "
        "modules",
        "docs/layout.md:5: module list of functions/layer/python/ddbguard/gone: no such folder",
    ]


def test_the_architecture_page_must_carry_a_module_list_of_each_layer_folder(repo: Path) -> None:
    (repo / "docs" / "architecture.md").write_text(
        "<!-- modules: functions/layer/python/ddbguard/store -->\nThe store: `keys`.\n"
    )
    found = findings(repo)
    assert "docs/architecture.md:1: no module list of functions/layer/python/ddbguard/guards" in " ".join(found)
    assert not any("ddbguard/store (mark" in line for line in found), found


def test_an_unmarked_paragraph_naming_most_modules_of_a_layer_folder_must_be_marked(repo: Path) -> None:
    store = repo / "functions/layer/python/ddbguard/store"
    for name in ("reads", "writes", "plan", "codec"):
        (store / f"{name}.py").write_text(f'"""{name}."""\n')
    (repo / "docs" / "layout.md").write_text("The store: `keys`, `reads`, `writes` and `plan`.\n")
    assert findings(repo) == [
        "docs/layout.md:1: names most modules of functions/layer/python/ddbguard/store: mark it "
        "<!-- modules: functions/layer/python/ddbguard/store --> and complete it"
    ]
    (repo / "docs" / "layout.md").write_text("The store: `keys` and `reads`, among others.\n")
    assert findings(repo) == []
