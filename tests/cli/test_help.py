"""``--help`` of every sub-command: each option described, plain text (no reST markup)."""

from __future__ import annotations

import argparse
import re

import pytest

from nmthpo.cli import build_parser, main

#: reST that must not reach a terminal: literals and Sphinx roles.
REST = re.compile(r"``|:(mod|func|class|meth|data|attr|doc|ref):`")


def _parsers(
    parser: argparse.ArgumentParser, path: tuple[str, ...] = ()
) -> list[tuple[tuple[str, ...], argparse.ArgumentParser]]:
    out = [(path, parser)]
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                out += _parsers(sub, (*path, name))
    return out


PARSERS = _parsers(build_parser())
IDS = [" ".join(path) or "nmthpo" for path, _ in PARSERS]


def test_every_sub_command_is_walked():
    names = {path[0] for path, _ in PARSERS if path}
    assert {"tasks", "methods", "data", "run", "evaluate", "score-spaces", "compare"} <= names


@pytest.mark.parametrize(("path", "parser"), PARSERS, ids=IDS)
def test_every_option_has_help(path, parser):
    missing = [
        "/".join(a.option_strings) or a.dest
        for a in parser._actions
        if not isinstance(a, argparse._HelpAction | argparse._SubParsersAction)
        and not (a.help or "").strip()
    ]
    assert not missing, f"nmthpo {' '.join(path)}: options without help: {missing}"
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for choice in action._choices_actions:
                assert (choice.help or "").strip(), f"sub-command {choice.dest} has no help"


@pytest.mark.parametrize(("path", "parser"), PARSERS, ids=IDS)
def test_help_is_plain_text_with_a_description(path, parser):
    text = parser.format_help()
    assert not REST.search(text), f"nmthpo {' '.join(path)} --help shows reST: {text}"
    assert (parser.description or "").strip(), f"nmthpo {' '.join(path)} has no description"


@pytest.mark.parametrize("command", ["score-spaces", "methods", "run", "compare", "transfer"])
def test_help_as_the_user_sees_it(command, capsys):
    """Through main(): the parser built for one sub-command (the others by name only)."""
    with pytest.raises(SystemExit) as exc:
        main([command, "--help"])
    assert exc.value.code == 0
    out = capsys.readouterr().out
    assert out.startswith(f"usage: nmthpo {command}")
    assert not REST.search(out)
