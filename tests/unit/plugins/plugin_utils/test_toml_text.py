# Copyright (c) 2026 numa.kubelet developers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""TOML text from mappings (_toml_text): what tomllib reads back is what was written, whatever the strings hold."""

from __future__ import annotations

import tomllib

import pytest

from ansible_collections.numa.kubelet.plugins.plugin_utils._toml_text import TomlTextError, toml_text

NASTY = ['a"b', "back\\slash", 'x"\n[settings]\nkey = "y', "tab\there", "\x00\x1f\x7f", "ünïcødé ☃", "]]", "'single'", "#not a comment"]


def test_exact_text_of_bottlerocket_settings():
    data = {"settings": {"kubernetes": {"memory-manager-policy": "Static", "max-pods": 29, "eviction-hard": {"memory.available": "100Mi"}}}}
    assert toml_text(data, "# Ansible managed\n") == (
        '# Ansible managed\n[settings.kubernetes]\nmemory-manager-policy = "Static"\nmax-pods = 29\n\n'
        '[settings.kubernetes.eviction-hard]\n"memory.available" = "100Mi"\n'
    )


@pytest.mark.parametrize("text", NASTY)
def test_any_string_reads_back_unchanged_as_value_and_as_key(text):
    data = {"settings": {"kubernetes": {"value": text, text: {"enabled": True, "memory": text}}}}
    assert tomllib.loads(toml_text(data)) == data


def test_numeric_keys_booleans_and_empty_tables_read_back():
    data = {"settings": {"kubernetes": {"memory-manager-reserved-memory": {"0": {"enabled": True, "memory": "1Gi"}, "1": {"enabled": False}}}, "empty": {}}}
    assert tomllib.loads(toml_text(data)) == data


@pytest.mark.parametrize("value", [1.5, None, ["a"], ("a",)])
def test_values_outside_the_subset_are_refused_by_path(value):
    with pytest.raises(TomlTextError, match=r"settings\.x: .* is not a string, integer or boolean"):
        toml_text({"settings": {"x": value}})


def test_an_empty_key_is_refused():
    with pytest.raises(TomlTextError, match="a TOML key must be a non-empty string"):
        toml_text({"": "x"})
