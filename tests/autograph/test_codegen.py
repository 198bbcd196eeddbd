"""Readable converted source: line wrapping and blank lines."""

import ast

from autograph.impl import codegen
from autograph.pyct import parser


def _source(text: str) -> str:
    return codegen.to_source(parser.parse_source(text).body[0])


def _same_tree(a: str, b: str) -> bool:
    return ast.dump(ast.parse(a)) == ast.dump(ast.parse(b))


def test_a_long_call_is_wrapped_after_its_parenthesis_with_arguments_packed():
    args = ", ".join(f"argument_{i}" for i in range(12))
    original = f"def f():\n    return ag__.for_stmt({args})\n"
    out = _source(original)
    lines = out.splitlines()
    assert all(len(line) <= codegen.MAX_LINE for line in lines)
    assert lines[1].endswith("ag__.for_stmt(")
    assert _same_tree(out, original)


def test_a_long_comprehension_breaks_before_its_for_clause():
    body = (
        "return [some_function_with_a_long_name(value, other_argument) "
        "for value in a_long_iterable_name if value]"
    )
    original = f"def f():\n    {body}\n"
    out = _source(original)
    assert all(len(line) <= codegen.MAX_LINE for line in out.splitlines())
    assert out.splitlines()[-1].strip().startswith("for value in")
    assert _same_tree(out, original)


def test_blank_lines_between_statements_go_but_those_inside_strings_stay():
    original = 'def f():\n    """Doc.\n\n    More."""\n\n    x = 1\n\n    return x\n'
    out = _source(original)
    assert '"""Doc.\n\n    More."""' in out
    assert "\n\n    x = 1" not in out
