# Copyright (c) 2026 numa.kubelet developers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""YAML files read as the kubelet and the platforms read them (go-yaml, a port of libyaml), in pure Python.

The kubelet decodes its files with sigs.k8s.io/yaml over go-yaml v2, whose scanner takes tabs as libyaml's does
(scannerc.go, https://github.com/yaml/go-yaml/blob/246a95c22c57f15ef6d3305a1f1b8a0b05e4d560/scannerc.go, v2.4.2;
libyaml's https://github.com/yaml/libyaml/blob/2bcfabd2205d90346688cb6f3dfd79b53ebf55fd/src/scanner.c is the same).
PyYAML's pure-Python scanner refuses every tab outside quotes; go-yaml's:
- skips a tab as separation where a simple key cannot start (after a token on a line, after a key's ':') and anywhere
  inside a flow collection, and refuses it at the start of a line or after '-', '?' or a complex key's ':'
  ("found character that cannot start any token", yaml_parser_scan_to_next_token);
- inside a plain scalar, on the lines after its first (blank lines and comment lines too, as they end the scalar),
  refuses a tab left of the scalar's indentation (the enclosing block's indent + 1, in a flow collection too) and
  skips one at or right of it ("found a tab character that violates indentation", yaml_parser_scan_plain_scalar);
- in a block scalar ('|', '>'), refuses a tab among the indentation spaces: anywhere before the first text when the
  indentation is not given, left of it afterwards ("found a tab character where an indentation space is expected",
  yaml_parser_scan_block_scalar_breaks);
- takes tabs in a quoted scalar's line breaks as spaces, as PyYAML does.
Types, merge keys and everything else are PyYAML's SafeLoader's.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import yaml
from yaml.scanner import ScannerError

# go-yaml's own problem texts for a misplaced tab (scannerc.go); PyYAML names the character where go-yaml does not.
TAB_VIOLATES_INDENTATION = "found a tab character that violates indentation"
TAB_WHERE_INDENTATION_SPACE = "found a tab character where an indentation space is expected"
_GO_YAML_PROBLEMS = (TAB_VIOLATES_INDENTATION, TAB_WHERE_INDENTATION_SPACE)
_CANNOT_START_TOKEN = re.compile(r"^found character .* that cannot start any token$")
_LINE_BREAKS = "\r\n\x85\u2028\u2029"
_DOCUMENT_INDICATOR_FOLLOWERS = "\0 \t" + _LINE_BREAKS


class GoYamlSafeLoader(yaml.SafeLoader):
    """SafeLoader whose scanner takes tabs where go-yaml's does, and refuses them where it does."""

    def scan_to_next_token(self) -> None:
        if self.index == 0 and self.peek() == "\ufeff":
            self.forward()
        while True:
            while self.peek() == " " or (self.peek() == "\t" and (self.flow_level or not self.allow_simple_key)):
                self.forward()
            if self.peek() == "#":
                while self.peek() not in "\0" + _LINE_BREAKS:
                    self.forward()
            if not self.scan_line_break():
                return
            if not self.flow_level:
                self.allow_simple_key = True

    def scan_plain_spaces(self, indent: int, start_mark: yaml.Mark) -> list[str] | None:
        # PyYAML's own, with go-yaml's tabs: kept between words on a line (`a: b<TAB>c` is "b\tc"), skipped or
        # refused by column on the lines after the first.
        length = 0
        while self.peek(length) in " \t":
            length += 1
        whitespaces = self.prefix(length)
        self.forward(length)
        if self.peek() not in _LINE_BREAKS:
            return [whitespaces] if whitespaces else []
        line_break = self.scan_line_break()
        self.allow_simple_key = True
        if self._at_document_indicator():
            return None
        breaks = []
        while self.peek() in " \t" + _LINE_BREAKS:
            if self.peek() == "\t" and self.column < indent:
                raise ScannerError("while scanning a plain scalar", start_mark, TAB_VIOLATES_INDENTATION, self.get_mark())
            if self.peek() in " \t":
                self.forward()
                continue
            breaks.append(self.scan_line_break())
            if self._at_document_indicator():
                return None
        chunks = [line_break] if line_break != "\n" else [] if breaks else [" "]
        return chunks + breaks

    def scan_block_scalar_indentation(self) -> tuple[list[str], int, yaml.Mark]:
        breaks, max_indent, end_mark = super().scan_block_scalar_indentation()
        if self.peek() == "\t":
            # The indentation is not known yet: go-yaml refuses a tab anywhere among the leading spaces.
            raise ScannerError("while scanning a block scalar", None, TAB_WHERE_INDENTATION_SPACE, self.get_mark())
        return breaks, max_indent, end_mark

    def scan_block_scalar_breaks(self, indent: int) -> tuple[list[str], yaml.Mark]:
        chunks = []
        end_mark = self.get_mark()
        self._skip_block_indentation(indent)
        while self.peek() in _LINE_BREAKS:
            chunks.append(self.scan_line_break())
            end_mark = self.get_mark()
            self._skip_block_indentation(indent)
        return chunks, end_mark

    def _skip_block_indentation(self, indent: int) -> None:
        while self.column < indent and self.peek() == " ":
            self.forward()
        if self.column < indent and self.peek() == "\t":
            raise ScannerError("while scanning a block scalar", None, TAB_WHERE_INDENTATION_SPACE, self.get_mark())

    def _at_document_indicator(self) -> bool:
        return self.prefix(3) in ("---", "...") and self.peek(3) in _DOCUMENT_INDICATOR_FOLLOWERS


def load_yaml(text: str) -> Any:
    """The first document of text, as go-yaml reads it."""
    return yaml.load(text, Loader=GoYamlSafeLoader)


def load_yaml_documents(text: str) -> Iterator[Any]:
    """Every document of text, as go-yaml reads them."""
    return yaml.load_all(text, Loader=GoYamlSafeLoader)


def go_yaml_error(exc: yaml.YAMLError) -> str | None:
    """go-yaml's own error for a misplaced tab (or other character that cannot start a token), as the kubelet prints
    it after "failed to decode: " ("yaml: line N: found a tab character that violates indentation"); None for
    any other error, whose words are PyYAML's."""
    mark = getattr(exc, "problem_mark", None)
    if not isinstance(exc, ScannerError) or mark is None:
        return None
    problem = exc.problem or ""
    if _CANNOT_START_TOKEN.match(problem):
        problem = "found character that cannot start any token"
    elif problem not in _GO_YAML_PROBLEMS:
        return None
    # go-yaml's parser.fail names no line when the problem is on the first (its 0-based line is 0).
    line = f"line {mark.line + 1}: " if mark.line else ""
    return f"yaml: {line}{problem}"


def yaml_error_text(exc: yaml.YAMLError) -> str:
    """A YAML error on one line; go-yaml's words first where go_yaml_error knows them, PyYAML's own text after them."""
    text = str(exc).replace("\n", " ")
    kubelet_words = go_yaml_error(exc)
    return f"{kubelet_words} ({text})" if kubelet_words else text
