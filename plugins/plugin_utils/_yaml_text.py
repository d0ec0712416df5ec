# Copyright (c) 2026 numa.kubelet developers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""YAML files read as the kubelet and the platforms read them (go-yaml, a port of libyaml), in pure Python.

PyYAML's pure-Python scanner refuses every tab outside quotes; libyaml and go-yaml skip a tab as separation
whitespace where a simple key cannot start (after a token on a line, after a key's ':') and anywhere inside a flow
collection, and refuse it at the start of a line (indentation) or after '-', '?' or a complex key's ':'
(yaml_parser_scan_to_next_token, https://github.com/yaml/libyaml/blob/2bcfabd2205d90346688cb6f3dfd79b53ebf55fd/src/scanner.c;
go-yaml's yaml_parser_scan_to_next_token in scannerc.go is the same). Types, merge keys and everything else are
PyYAML's SafeLoader's.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import yaml

# PyYAML names the character, libyaml (and so the kubelet's error) does not.
_CANNOT_START_TOKEN = re.compile(r"^found character .* that cannot start any token$")


class GoYamlSafeLoader(yaml.SafeLoader):
    """SafeLoader whose scanner skips tabs where libyaml's does."""

    def scan_to_next_token(self) -> None:
        if self.index == 0 and self.peek() == "\ufeff":
            self.forward()
        while True:
            while self.peek() == " " or (self.peek() == "\t" and (self.flow_level or not self.allow_simple_key)):
                self.forward()
            if self.peek() == "#":
                while self.peek() not in "\0\r\n\x85\u2028\u2029":
                    self.forward()
            if not self.scan_line_break():
                return
            if not self.flow_level:
                self.allow_simple_key = True

    def scan_plain_spaces(self, indent: int, start_mark: yaml.Mark) -> list[str] | None:
        # libyaml's plain scalar takes tabs between its words on a line as it takes spaces (`a: b<TAB>c` is "b\tc").
        length = 0
        while self.peek(length) in " \t":
            length += 1
        blanks = self.prefix(length)
        if "\t" not in blanks:
            return super().scan_plain_spaces(indent, start_mark)
        self.forward(length)
        if self.peek() in "\r\n\x85\u2028\u2029":
            return super().scan_plain_spaces(indent, start_mark)
        return [blanks]


def load_yaml(text: str) -> Any:
    """The first document of text, as go-yaml reads it."""
    return yaml.load(text, Loader=GoYamlSafeLoader)


def load_yaml_documents(text: str) -> Iterator[Any]:
    """Every document of text, as go-yaml reads them."""
    return yaml.load_all(text, Loader=GoYamlSafeLoader)


def yaml_error_text(exc: yaml.YAMLError) -> str:
    """A YAML error on one line; a tab (or other character) that cannot start a token in the kubelet's words first
    ("yaml: line N: found character that cannot start any token"), PyYAML's own text after it."""
    text = str(exc).replace("\n", " ")
    mark = getattr(exc, "problem_mark", None)
    if isinstance(exc, yaml.scanner.ScannerError) and mark is not None and _CANNOT_START_TOKEN.match(exc.problem or ""):
        return f"yaml: line {mark.line + 1}: found character that cannot start any token ({text})"
    return text
