"""Body validation options for the first request: what each costs in a fresh process, and the 422 it can give.

`python -m bench.validators [--rounds N]` prints one table (and `--write` puts it into bench/results.md, section
3e). No DynamoDB: only the validation of one representative body per route kind (Amount: deposit, withdraw,
holds; CreateAccount: sign-up), as the edge does after its own JSON checks (bodies.parse_json: duplicate keys,
NaN and control characters are refused before any validator sees the document).

Each figure is a fresh `python3.13 -S -B` process on the built layers (infra/staged_assets.py and the dependencies
layer's host twin, both with bytecode; nothing written), timing from its first line: making the validator ready
("ready": imports and model build) and validating a valid body ("1st validate"), then one invalid body (a string
amount and an unknown field) whose error list is shown. The options, interleaved option by option in each round
(medians): pydantic, lazy, the former request path (the pydantic models, each built at first use: defer_build);
pydantic, built ahead (the same models, every one built at import, as defer_build=False would); pydantic-core,
precompiled, the request path now (`ddbguard_api.models.body_validation` on the core schemas generated ahead into
ddbguard_api/models/compiled_schemas.py: pydantic itself is never imported); msgspec
(`msgspec.Struct` types written to match, forbid_unknown_fields and Meta constraints, `msgspec.convert` with
strict=True); fastjsonschema (code compiled at build time by `compile_to_code` from the models' JSON Schema,
imported at run time; that schema states the normalised rules of email and username, not the raw bounds the
models check, so it validates something else than the models do).
msgspec and fastjsonschema are pinned in bench/validator-requirements.txt and installed into
.local/bench-validators, never into the venv or a layer.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING, Any

from local.paths import ROOT

if TYPE_CHECKING:
    from pydantic import BaseModel

REQUIREMENTS = ROOT / "bench" / "validator-requirements.txt"
SITE = ROOT / ".local" / "bench-validators"
MODELS = ("Amount", "CreateAccount")
VALID = {"Amount": {"amountCents": 2500}, "CreateAccount": {"email": "ada@lovelace.io", "username": "ada"}}
INVALID = {
    "Amount": {"amountCents": "2500", "note": "x"},
    "CreateAccount": {"email": 7, "username": "ada", "role": "admin"},
}

# What each option runs in the fresh process: READY makes the validator, VALIDATE(doc) -> list of (field, code,
# message) problems ([] when valid). `model` is the model's name.
OPTIONS: dict[str, tuple[str, str]] = {
    "pydantic, lazy (the former path)": (
        "from ddbguard_api.models import request_models\n"
        "from ddbguard_api.models.entity_models import request_models_of\n"
        "from ddbguard.domain.entities.accounts import ACCOUNT\n"
        "models = {'Amount': request_models.Amount, 'CreateAccount': request_models_of(ACCOUNT)[0]}\n"
        "model = models[NAME]\n",
        "from pydantic import ValidationError\nfrom ddbguard_api.http.bodies import field_errors\n"
        "def validate(doc):\n"
        "    try:\n        model.model_validate(doc)\n        return []\n"
        "    except ValidationError as error:\n"
        "        return [(e.field, e.code, e.message) for e in field_errors(error)]\n",
    ),
    "pydantic, built ahead": (
        "from ddbguard_api.models import request_models\n"
        "from ddbguard_api.models.entity_models import request_models_of\n"
        "from ddbguard.domain.entities.accounts import ACCOUNT\n"
        "models = {'Amount': request_models.Amount, 'CreateAccount': request_models_of(ACCOUNT)[0]}\n"
        "model = models[NAME]\n"
        "from ddbguard.domain.entities.orders import ORDER\n"
        "built = [request_models.Amount, request_models.Transfer, request_models.StatementQuery,\n"
        "         request_models.AccountListQuery, *request_models_of(ACCOUNT), *request_models_of(ORDER)]\n"
        "for built_model in built:\n"
        "    built_model.model_rebuild(force=True)\n",
        "from pydantic import ValidationError\nfrom ddbguard_api.http.bodies import field_errors\n"
        "def validate(doc):\n"
        "    try:\n        model.model_validate(doc)\n        return []\n"
        "    except ValidationError as error:\n"
        "        return [(e.field, e.code, e.message) for e in field_errors(error)]\n",
    ),
    "pydantic-core, precompiled (the request path)": (
        "from ddbguard_api.models.body_validation import validate as validated, validator\n"
        "from ddbguard_api.models.request_bodies import BODIES\nbody = BODIES[NAME]\nvalidator(body)\n",
        "from pydantic_core import ValidationError\nfrom ddbguard_api.http.bodies import field_errors\n"
        "def validate(doc):\n"
        "    try:\n        validated(body, doc)\n        return []\n"
        "    except ValidationError as error:\n"
        "        return [(e.field, e.code, e.message) for e in field_errors(error)]\n",
    ),
    "msgspec": (
        "import msgspec\nfrom typing import Annotated\n"
        "Cents = Annotated[int, msgspec.Meta(ge=1, le=100000000000)]\n"
        "class Amount(msgspec.Struct, forbid_unknown_fields=True, frozen=True):\n    amountCents: Cents\n"
        "class CreateAccount(msgspec.Struct, forbid_unknown_fields=True, frozen=True):\n"
        "    email: Annotated[str, msgspec.Meta(min_length=3, max_length=320)]\n"
        "    username: Annotated[str, msgspec.Meta(min_length=1, max_length=320)]\n"
        "    displayName: Annotated[str, msgspec.Meta(min_length=1, max_length=100)] | None = None\n"
        "model = {'Amount': Amount, 'CreateAccount': CreateAccount}[NAME]\n",
        "def validate(doc):\n"
        "    try:\n        msgspec.convert(doc, model, strict=True)\n        return []\n"
        "    except msgspec.ValidationError as error:\n"
        "        message = str(error)\n"
        "        field = message.rsplit('`$.', 1)[-1].rstrip('`') if '`$.' in message else 'body'\n"
        "        return [(field, 'invalid', message)]  # one error, its code only in the message text\n",
    ),
    "fastjsonschema, compiled": (
        "import compiled_schemas\nvalidator = getattr(compiled_schemas, 'validate_' + NAME)\n",
        "def validate(doc):\n"
        "    try:\n        validator(doc)\n        return []\n"
        "    except compiled_schemas.JsonSchemaValueException as error:\n"
        "        return [(error.name.removeprefix('data.'), error.rule, error.message)]  # the first error only\n",
    ),
}

_CHILD = r"""
import json, sys, time
spec = json.loads(sys.stdin.read())
import ddbguard_api.http.bodies  # loaded with every handler already: no option pays for it
start = time.perf_counter()
namespace = {"NAME": spec["model"]}
exec(spec["ready"], namespace)
ready = time.perf_counter()
exec(spec["validate"], namespace)
problems = namespace["validate"](spec["valid"])
first = time.perf_counter()
assert problems == [], problems
errors = namespace["validate"](spec["invalid"])
leaked = sorted(name for name in ("pydantic", "pydantic_core", "msgspec") if name in sys.modules)
print(json.dumps({"ready_ms": (ready - start) * 1000, "first_ms": (first - start) * 1000,
    "errors": errors, "loaded": leaked}))
"""


def validator_site() -> Path:
    if not (SITE / "msgspec").is_dir() or not (SITE / "fastjsonschema").is_dir():
        pip = [sys.executable, "-m", "pip", "install", "--quiet", "--disable-pip-version-check", "--no-deps"]
        subprocess.run([*pip, "--target", str(SITE), "--requirement", str(REQUIREMENTS)], check=True)
    return SITE


def build_time_modules(folder: Path) -> None:
    """What a build step would ship for fastjsonschema: the JSON Schema validators as code."""
    sys.path[:0] = [str(ROOT / "functions" / "layer" / "python"), str(validator_site())]
    import fastjsonschema  # type: ignore[import-not-found]  # installed for this bench only

    from ddbguard.domain.entities.accounts import ACCOUNT
    from ddbguard_api.models import request_models
    from ddbguard_api.models.entity_models import request_models_of

    models: dict[str, type[BaseModel]] = {
        "Amount": request_models.Amount,
        "CreateAccount": request_models_of(ACCOUNT)[0],
    }
    code = ["import re\nfrom fastjsonschema import JsonSchemaValueException\n"]
    for name in MODELS:
        model = models[name]
        generated = fastjsonschema.compile_to_code(model.model_json_schema())
        code.append(generated.replace("def validate(", f"def validate_{name}(").replace("\nimport re", ""))
    (folder / "compiled_schemas.py").write_text("\n".join(code), encoding="utf-8")
    # Compiled as the layers are, so no option pays for compiling its module.
    from ddbguard_cdk import layer_bytecode

    layer_bytecode.compile_layer(folder)


def measure(rounds: int) -> list[list[Any]]:
    from ddbguard_cdk import layer_bytecode
    from infra import dependency_layer, staged_assets

    site = dependency_layer.layer_root(dependency_layer.HOST_PLATFORM) / "python"
    with tempfile.TemporaryDirectory(prefix="ddbguard-validators-") as folder:
        build_time_modules(Path(folder))
        path = [folder, str(staged_assets.layer_root() / "python"), str(site), str(validator_site())]
        env = {"PATH": os.environ.get("PATH", ""), "PYTHONPATH": os.pathsep.join(path), "PYTHONDONTWRITEBYTECODE": "1"}
        figures: dict[tuple[str, str], list[dict[str, Any]]] = {}
        for _ in range(rounds):
            for model in MODELS:
                for option, (ready, validate) in OPTIONS.items():
                    spec: dict[str, Any] = {"model": model, "ready": ready, "validate": validate}
                    spec |= {"valid": VALID[model], "invalid": INVALID[model]}
                    done = subprocess.run(
                        [layer_bytecode.lambda_python(), "-S", "-B", "-c", _CHILD],
                        input=json.dumps(spec),
                        capture_output=True,
                        text=True,
                        env=env,
                        cwd=folder,
                        check=False,
                    )
                    if done.returncode != 0:
                        raise RuntimeError(f"{option} on {model} failed:\n{done.stderr[-3000:]}")
                    figures.setdefault((model, option), []).append(json.loads(done.stdout.strip().splitlines()[-1]))
    rows = []
    for (model, option), runs in figures.items():
        errors = "; ".join(f"{field} {code}: {message}" for field, code, message in runs[-1]["errors"])
        rows.append(
            [
                model,
                option,
                statistics.median(run["ready_ms"] for run in runs),
                statistics.median(run["first_ms"] for run in runs),
                ", ".join(runs[-1]["loaded"]) or "none",
                errors,
            ]
        )
    return rows


def section(rounds: int) -> str:
    from bench import results

    rows = measure(rounds)
    headers = ["body", "option", "ready ms (p50)", "ready + 1st validate ms (p50)", "loaded", "422 errors it gives"]
    return "\n\n".join(
        [
            f"## 3e. Body validation options (fresh process per figure, {rounds} interleaved rounds, medians)",
            f"Command: `python -m bench.validators --rounds {rounds}`, {results.machine()}.",
            __doc__.split("\n\n", 1)[1].strip().replace("\n", " "),
            results.table(headers, rows),
        ]
    )


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.validators", description=__doc__)
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--write", action="store_true", help="replace section 3e of bench/results.md with the run")
    args = parser.parse_args()
    text = section(args.rounds)
    print(text)
    if args.write:
        from bench import results

        results.write_sections([text])


if __name__ == "__main__":
    main()
