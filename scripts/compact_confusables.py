"""Write the layer's copy of Unicode's confusables data (UTS #39 confusables.txt) in a compact form.

`make confusables SOURCE=<path to confusables.txt>` runs it. The layer reads the result
(`ddbguard/store/confusables.tsv`): one line per mapping, `source<TAB>prototype`, code points in hex, with the
source file's version, date and SHA-256 in the header so a reader can tell which data the lock keys were built from.
"""

from __future__ import annotations

import hashlib
import sys
from pathlib import Path

TARGET = Path(__file__).resolve().parents[1] / "functions/layer/python/ddbguard/store/confusables.tsv"


def compact(source: bytes) -> str:
    text = source.decode("utf-8-sig")
    header = {}
    mappings: list[str] = []
    for line in text.splitlines():
        if line.startswith("#"):
            name, colon, value = line[1:].strip().partition(":")
            if colon and name in ("Date", "Version"):
                header[name] = value.strip()
            continue
        data = line.split("#", 1)[0].strip()
        if not data:
            continue
        fields = [field.strip() for field in data.split(";")]
        mappings.append(f"{fields[0]}\t{fields[1]}")
    if "Version" not in header or not mappings:
        raise SystemExit("not a confusables.txt: no Version header or no mappings")
    return (
        "# Unicode Security Mechanisms (UTS #39) confusables.txt, compacted: source<TAB>prototype, hex code points.\n"
        f"# Version: {header['Version']}\n"
        f"# Date: {header.get('Date', '')}\n"
        f"# SHA-256 of the source file: {hashlib.sha256(source).hexdigest()}\n"
        "# Copyright Unicode, Inc.; Unicode License v3 (terms of use: the Unicode web site).\n"
        + "\n".join(mappings)
        + "\n"
    )


def main() -> None:
    if len(sys.argv) != 2:
        raise SystemExit("usage: compact_confusables.py <confusables.txt>")
    TARGET.write_text(compact(Path(sys.argv[1]).read_bytes()), encoding="utf-8")
    print(f"wrote {TARGET.name}")


if __name__ == "__main__":
    main()
