import ast

from autograph.pyct import anno
from autograph.pyct.static_analysis import liveness
from autograph.pyct.static_analysis.liveness import Live


def _fn(src: str) -> ast.FunctionDef:
    fn = ast.parse(src).body[0]
    liveness.annotate(fn)
    return fn


def test_a_variable_read_after_an_if_is_live_out_of_it():
    fn = _fn("def f(x):\n  y = 1\n  if x:\n    y = 2\n  return y")
    assert anno.getanno(fn.body[1], Live.OUT) == {"y"}


def test_a_variable_overwritten_on_every_path_is_not_live_into_the_if():
    fn = _fn(
        "def f(x):\n  if x:\n    pass\n  if x:\n    y = 2\n  else:\n    y = 3\n"
        "  return y"
    )
    assert "y" not in anno.getanno(fn.body[0], Live.OUT)


def test_a_variable_set_in_one_branch_only_is_live_into_the_other():
    fn = _fn("def f(x, y):\n  if x:\n    y = 2\n  return y")
    assert anno.getanno(fn.body[0], Live.ORELSE_IN) == {"y"}
    assert anno.getanno(fn.body[0], Live.BODY_IN) == set()


def test_loop_header_sees_values_carried_between_iterations():
    fn = _fn(
        "def f(n):\n  i = 0\n  t = 0\n  while i < n:\n"
        "    t = t + i\n    i += 1\n  return t"
    )
    assert anno.getanno(fn.body[2], Live.LOOP_HEADER) == {"i", "n", "t"}


def test_a_temporary_inside_a_loop_is_not_live_at_its_header():
    fn = _fn(
        "def f(xs):\n  s = 0\n  for x in xs:\n    tmp = x * 2\n    s += tmp\n  return s"
    )
    assert anno.getanno(fn.body[1], Live.LOOP_HEADER) == {"s"}


def test_nothing_is_live_after_a_return():
    fn = _fn("def f(x):\n  if x:\n    return x")
    assert anno.getanno(fn.body[0], Live.OUT) == set()


def test_only_the_statements_conversion_rewrites_are_annotated():
    fn = _fn("def f(x):\n  y = x\n  while y:\n    y -= 1\n  return y")
    assert anno.keys(fn.body[0]) == anno.keys(fn.body[2]) == frozenset()
    assert anno.getanno(fn.body[1], Live.OUT) == {"y"}


def test_liveness_of_a_long_chain_of_ifs_is_computed_in_one_pass():
    body = "".join(f"  if x > {i}:\n    y = y + {i}\n" for i in range(300))
    fn = _fn(f"def f(x):\n  y = 0\n{body}  return y")
    assert anno.getanno(fn.body[1], Live.OUT) == {"x", "y"}


def test_a_return_keeps_live_what_an_enclosing_finally_block_reads():
    fn = ast.parse(
        "def f(n):\n  i = 0\n  try:\n    if n:\n      i = n\n    return 1\n"
        "  finally:\n    g(i)"
    ).body[0]
    liveness.annotate(fn)
    assign = fn.body[1].body[0]
    assert "i" in anno.getanno(assign, Live.OUT)


def test_a_break_keeps_live_what_a_finally_block_it_leaves_through_reads():
    src = (
        "def f(n):\n  i = 0\n  for k in n:\n    try:\n      if k:\n        i = k\n"
        "      break\n    finally:\n      g(i)\n  return 0"
    )
    fn = ast.parse(src).body[0]
    liveness.annotate(fn)
    assign = fn.body[1].body[0].body[0]
    assert "i" in anno.getanno(assign, Live.OUT)


def test_what_a_finally_block_reads_is_live_throughout_the_handlers_and_else():
    # An exception from a handler or the else block runs the finally block,
    # which reads `i`: the last assignment to `i` there is not dead.
    fn = _fn(
        "def f(n):\n  i = 0\n  try:\n    pass\n  except KeyError:\n    i = 1\n"
        "    if n:\n      g(n)\n    i = 2\n  else:\n    i = 3\n    if n:\n      g(n)\n"
        "    i = 4\n  finally:\n    h(i)"
    )
    try_ = fn.body[1]
    assert "i" in anno.getanno(try_.handlers[0].body[1], Live.OUT)
    assert "i" in anno.getanno(try_.orelse[1], Live.OUT)
