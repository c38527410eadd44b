"""The README's tables name exactly the commands `make help` lists, with the same arguments.

A command row is a table row whose first cell is one backticked `make ...` command. `make help` prints each
command, two spaces or more, and what it does. They drifted once (no `ENV` on `make synth` and `make sizes`; no
`make regenerate`, `make headroom` or `make confusables`); here they are held equal.
"""

from __future__ import annotations

import re
import subprocess

from local.paths import ROOT

ROW = re.compile(r"^\| `(make [^`]+)` \|", re.MULTILINE)


def help_commands() -> list[str]:
    printed = subprocess.run(
        ["make", "-s", "--no-print-directory", "help"], cwd=ROOT, capture_output=True, text=True, timeout=120
    )
    assert printed.returncode == 0, printed.stderr
    return [re.split(r"\s{2,}", line.strip(), maxsplit=1)[0] for line in printed.stdout.splitlines() if line.strip()]


def readme_commands() -> list[str]:
    return ROW.findall((ROOT / "README.md").read_text(encoding="utf-8"))


def test_every_command_make_help_lists_is_in_a_readme_table_as_written():
    listed = help_commands()
    assert len(listed) == len(set(listed)) > 20
    assert sorted(set(listed) - set(readme_commands())) == [], "commands of `make help` missing from the README"


def test_every_command_in_a_readme_table_is_one_make_help_lists():
    documented = readme_commands()
    assert len(documented) == len(set(documented)), "a command with two rows"
    assert sorted(set(documented) - set(help_commands())) == [], "README rows `make help` does not list so"


def test_commands_that_act_on_an_environment_name_it():
    for command in help_commands():
        target = command.split()[1]
        if target in ("synth", "sizes", "diff", "deploy", "destroy", "watch"):
            assert "ENV=<env>" in command, command
