# Copyright (c) 2026 numa.kubelet developers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""TOML text from nested mappings of strings, integers and booleans (Bottlerocket user data).

Python 3.11 reads TOML (tomllib) but does not write it. The subset here is what Bottlerocket settings need: tables
(each mapping becomes a [dotted.header] table), string, integer and boolean values. Every key and string is escaped
by the TOML 1.0 rules (https://toml.io/en/v1.0.0#string), so no user value can end a string or start a table.
"""

from __future__ import annotations

import re
from typing import Any

_BARE_KEY = re.compile(r"^[A-Za-z0-9_-]+$")
# TOML basic strings: the quotation mark, the backslash and the control characters other than tab must be escaped.
_SHORT_ESCAPES = {'"': '\\"', "\\": "\\\\", "\b": "\\b", "\t": "\\t", "\n": "\\n", "\f": "\\f", "\r": "\\r"}


class TomlTextError(ValueError):
    """A value the TOML subset cannot write (a list, a float, None, ...); the message names where it is."""


def toml_string(text: str) -> str:
    """A TOML basic string holding text exactly."""
    out = []
    for char in text:
        if char in _SHORT_ESCAPES:
            out.append(_SHORT_ESCAPES[char])
        elif ord(char) < 0x20 or ord(char) == 0x7F:
            out.append(f"\\u{ord(char):04X}")
        else:
            out.append(char)
    return '"' + "".join(out) + '"'


def toml_key(key: str) -> str:
    """A bare key when TOML allows one, else a quoted key."""
    if not isinstance(key, str) or not key:
        raise TomlTextError(f"{key!r}: a TOML key must be a non-empty string")
    return key if _BARE_KEY.match(key) else toml_string(key)


def _value(value: Any, path: str) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, str):
        return toml_string(value)
    raise TomlTextError(f"{path}: {value!r} is not a string, integer or boolean")


def _tables(data: dict, header: list[str]) -> list[str]:
    """The table `header` (its plain values) followed by its sub-tables, in the mapping's order."""
    path = ".".join(header) or "(top)"
    values = [f"{toml_key(key)} = {_value(value, f'{path}.{key}')}" for key, value in data.items() if not isinstance(value, dict)]
    blocks = []
    if values or (header and not any(isinstance(value, dict) for value in data.values())):
        blocks.append("\n".join(([f"[{'.'.join(header)}]"] if header else []) + values))
    for key, value in data.items():
        if isinstance(value, dict):
            blocks.extend(_tables(value, [*header, toml_key(key)]))
    return blocks


def toml_text(data: dict, comment: str = "") -> str:
    """TOML for data (mappings as tables, in order), after comment (already '#'-prefixed lines)."""
    if not isinstance(data, dict):
        raise TomlTextError(f"{data!r}: TOML text is written from a mapping")
    return comment + "\n\n".join(_tables(data, [])) + "\n"
