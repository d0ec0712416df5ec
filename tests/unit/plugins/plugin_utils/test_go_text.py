# Copyright (c) 2026 numa.kubelet developers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Go's %q (_go_text.go_quote), as strconv.Quote prints the strings a config holds."""

from __future__ import annotations

import pytest

from ansible_collections.numa.kubelet.plugins.plugin_utils._go_text import go_quote


@pytest.mark.parametrize(
    "text, quoted",
    [
        ("1GB", '"1GB"'),
        ("", '""'),
        ('a"b', '"a\\"b"'),
        ("a\\b", '"a\\\\b"'),
        ("tab\there", '"tab\\there"'),
        ("\x00", '"\\x00"'),
        ("St\u0430tic", '"St\u0430tic"'),  # a printable Cyrillic letter is kept, as Go keeps it
        ("\u200b", '"\\u200b"'),
        ("\U000e0001", '"\\U000e0001"'),
    ],
)
def test_go_quote(text, quoted):
    assert go_quote(text) == quoted


@pytest.mark.parametrize(("text", "expected"), [('a"b\\c', '"a\\"b\\\\c"'), ("tab\there", '"tab\\there"'), ("\x00", '"\\x00"'), ("é", '"é"')])
def test_go_quote_escapes(text, expected):
    assert go_quote(text) == expected
