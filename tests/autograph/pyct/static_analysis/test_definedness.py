import ast

from autograph.pyct import anno
from autograph.pyct.static_analysis import activity, definedness, liveness
from autograph.pyct.static_analysis.definedness import Defined


def _fn(src: str, converted: bool = False) -> ast.FunctionDef:
    fn = ast.parse(src).body[0]
    liveness.annotate(fn)
    definedness.annotate(fn, converted=converted)
    return fn


def test_a_name_assigned_in_one_branch_is_not_definitely_defined_after():
    fn = _fn("def f(c):\n  if c:\n    y = 1\n  return y")
    assert anno.getanno(fn.body[1].value, Defined.DEFINITELY) is False
    assert anno.getanno(fn.body[1], Defined.MUST_IN) == {"c"}


def test_a_name_assigned_in_both_branches_is_definitely_defined_after():
    fn = _fn("def f(c):\n  if c:\n    y = 1\n  else:\n    y = 2\n  return y")
    assert not anno.hasanno(fn.body[1].value, Defined.DEFINITELY)


def test_del_makes_a_name_undefined():
    fn = _fn("def f(x):\n  del x\n  return x")
    assert anno.getanno(fn.body[1].value, Defined.DEFINITELY) is False


def test_del_in_a_finally_block_makes_a_name_undefined_after_it():
    fn = _fn("def f(y):\n  try:\n    y += 1\n  finally:\n    del y\n  return y")
    assert anno.getanno(fn.body[1].value, Defined.DEFINITELY) is False


def test_a_name_bound_again_in_a_finally_block_is_defined_after_it():
    src = "def f(y):\n  try:\n    pass\n  finally:\n    del y\n    y = 2\n  return y"
    fn = _fn(src)
    assert not anno.hasanno(fn.body[1].value, Defined.DEFINITELY)


def test_a_branch_that_returns_does_not_leave_names_undefined():
    fn = _fn("def f(c):\n  if c:\n    return 0\n  else:\n    y = 1\n  return y")
    assert not anno.hasanno(fn.body[1].value, Defined.DEFINITELY)


def test_a_name_first_assigned_in_a_loop_may_be_undefined_after_it():
    fn = _fn("def f(xs):\n  for x in xs:\n    last = x\n  return last")
    assert anno.getanno(fn.body[1].value, Defined.DEFINITELY) is False


def test_converted_semantics_bind_the_outputs_of_a_converted_if():
    src = "def f(c):\n  if c:\n    y = 1\n  while y:\n    y -= 1\n  return y"
    fn = _fn(src, converted=True)
    assert "y" in anno.getanno(fn.body[1], Defined.MUST_IN)
    assert anno.getanno(fn.body[1], Defined.MAY_IN) == {"c", "y"}


def test_a_while_test_is_checked_against_every_iteration_not_just_the_first():
    fn = _fn("def f(n):\n  x = 1\n  while x > 0:\n    del x\n  return n")
    assert anno.getanno(fn.body[1].test.left, Defined.DEFINITELY) is False


def test_code_after_a_with_block_that_raises_is_reachable():
    # The context manager may suppress the exception.
    src = "def f(cm):\n  with cm:\n    y = 1\n    raise KeyError\n  return y"
    fn = _fn(src)
    assert anno.getanno(fn.body[1], Defined.MUST_IN) == {"cm"}
    assert anno.getanno(fn.body[1].value, Defined.DEFINITELY) is False


def test_del_in_a_try_body_makes_a_name_undefined_in_its_handlers():
    src = "def f(y):\n  try:\n    del y\n    g()\n  except KeyError:\n    return y"
    fn = _fn(src)
    handler = fn.body[0].handlers[0]
    assert anno.getanno(handler.body[0].value, Defined.DEFINITELY) is False


def test_del_in_an_else_block_makes_a_name_undefined_in_the_finally_block():
    src = (
        "def f(y):\n  try:\n    pass\n  except E:\n    pass\n"
        "  else:\n    del y\n    raise E\n  finally:\n    h(y)"
    )
    fn = _fn(src)
    call = fn.body[0].finalbody[0].value
    assert anno.getanno(call.args[0], Defined.DEFINITELY) is False


def test_del_in_a_with_block_makes_a_name_maybe_undefined_after_it():
    # The context manager may suppress an exception raised before a
    # re-binding: `with cm: del y; y = g()` may leave y unbound.
    src = "def f(cm, y):\n  with cm:\n    del y\n    y = g()\n  return y"
    fn = _fn(src)
    assert anno.getanno(fn.body[1].value, Defined.DEFINITELY) is False


def test_a_name_a_loop_may_bind_first_is_checked_after_it_even_when_surely_bound():
    # Every path out binds w (the break, the else), but a graph loop's
    # placeholder for it must still be read through `ag__.ld`.
    src = (
        "def f(n):\n  for i in n:\n    w = i\n    if w:\n      break\n"
        "  else:\n    w = 0\n  return w, i"
    )
    fn = _fn(src)
    w, i = fn.body[1].value.elts
    assert anno.getanno(w, Defined.DEFINITELY) is False
    assert anno.getanno(i, Defined.DEFINITELY) is False


def test_a_name_bound_before_a_loop_stays_definitely_bound_after_it():
    fn = _fn("def f(n):\n  w = 0\n  for i in n:\n    w = i\n  return w")
    assert not anno.hasanno(fn.body[2].value, Defined.DEFINITELY)


def test_reads_in_code_python_never_runs_are_marked_as_if_it_fell_through():
    src = (
        "def f(n):\n  for i in n:\n    w = i\n    return w\n  else:\n    return 0\n"
        "  n += w\n  return n"
    )
    fn = _fn(src)
    dead = fn.body[1]
    assert not anno.hasanno(dead.target, Defined.DEFINITELY)  # n: a parameter
    assert anno.getanno(dead.value, Defined.DEFINITELY) is False  # w


def test_reads_in_the_else_block_of_a_try_whose_body_always_returns_are_marked():
    # (Python never runs the else block; a graph traces it behind the
    # return's flag, where `w` may hold a graph loop's placeholder.)
    src = (
        "def f(n):\n  for i in n:\n    w = i\n  try:\n    return 1\n"
        "  except KeyError:\n    pass\n  else:\n    n += w\n  return n"
    )
    fn = _fn(src)
    dead = fn.body[1].orelse[0]
    assert not anno.hasanno(dead.target, Defined.DEFINITELY)  # n: a parameter
    assert anno.getanno(dead.value, Defined.DEFINITELY) is False  # w


def test_dead_code_binds_names_for_its_later_statements():
    src = "def f(n):\n  return n\n  ob = n\n  ob.x = w\n  return ob"
    fn = _fn(src)
    store = fn.body[2].targets[0]
    assert not anno.hasanno(store.value, Defined.DEFINITELY)  # ob
    assert anno.getanno(fn.body[2].value, Defined.DEFINITELY) is False  # w


def test_a_jump_through_a_finally_that_deletes_leaves_the_name_maybe_unbound():
    # The continue runs the finally (del x) on its way to the next iteration.
    src = (
        "def f(n):\n  x = 1\n  for i in n:\n    try:\n      continue\n"
        "    finally:\n      del x\n  return 0"
    )
    fn = _fn(src)
    loop = fn.body[1]
    delete = loop.body[0].finalbody[0]
    assert anno.getanno(delete.targets[0], Defined.DEFINITELY) is False


def test_a_walrus_in_a_comprehension_of_an_augmented_assignment_binds_sometimes():
    src = "def f(n):\n  y = 0\n  y += sum([(x := 1) for k in n])\n  return x"
    fn = _fn(src)
    assert anno.getanno(fn.body[2].value, Defined.DEFINITELY) is False


def test_reads_are_marked_without_the_statements_states_when_not_asked_for():
    fn = ast.parse("def f(c):\n  if c:\n    y = 1\n  return y").body[0]
    assert definedness.annotate(fn, states=False) == {"y"}
    assert anno.getanno(fn.body[1].value, Defined.DEFINITELY) is False
    assert not anno.hasanno(fn.body[1], Defined.MUST_IN)


def test_a_loop_that_deletes_takes_a_second_pass_that_marks_the_reads_again():
    src = "def f(xs):\n  y = 0\n  for x in xs:\n    print(y)\n    if x:\n      del y"
    fn = _fn(src)
    (read,) = fn.body[1].body[0].value.args
    assert anno.getanno(read, Defined.DEFINITELY) is False


def test_an_except_handler_unbinds_its_name_when_it_ends():
    # Python deletes `e` at the end of `except E as e:`.
    src = (
        "def f(c, e):\n  if c:\n    try:\n      g()\n    except E as e:\n"
        "      h(e)\n  return e"
    )
    fn = _fn(src)
    handler = fn.body[0].body[0].handlers[0]
    assert "e" in anno.getanno(handler.body[0], Defined.MUST_IN)
    assert anno.getanno(fn.body[1].value, Defined.DEFINITELY) is False


def test_converted_semantics_unbind_an_except_handlers_name_when_it_ends():
    src = (
        "def f(c, e):\n  try:\n    g()\n  except E as e:\n    pass\n"
        "  while c:\n    c = e"
    )
    fn = _fn(src, converted=True)
    assert anno.getanno(fn.body[1], Defined.MAY_IN) == {"c", "e"}
    assert anno.getanno(fn.body[1], Defined.MUST_IN) == {"c"}


def test_a_break_out_of_an_except_handler_unbinds_its_name():
    src = (
        "def f(xs, e):\n  for x in xs:\n    try:\n      g()\n"
        "    except E as e:\n      break\n  return e"
    )
    fn = _fn(src)
    assert anno.getanno(fn.body[1].value, Defined.DEFINITELY) is False


def test_a_name_bound_again_after_its_except_handler_is_defined():
    src = "def f(e):\n  try:\n    g()\n  except E as e:\n    pass\n  e = 1\n  return e"
    fn = _fn(src)
    assert not anno.hasanno(fn.body[2].value, Defined.DEFINITELY)


def _states_needed(src: str, outputs: bool = False) -> bool:
    fn = ast.parse(src).body[0]
    cache = activity.Cache()
    liveness.annotate(fn, cache)
    return definedness.converted_states_needed(fn, cache, walrus=False, outputs=outputs)


def test_control_flow_needs_no_states_where_its_names_are_bound_in_sequence():
    # s before the loop, i by the loop, t before the if: all bound in sequence
    src = (
        "def f(n):\n  s = 0\n  for i in range(n):\n    t = i\n"
        "    if t:\n      s = s + t\n  return s"
    )
    assert not _states_needed(src)


def test_control_flow_needs_states_for_a_name_an_if_may_leave_unbound():
    src = "def f(c):\n  if c:\n    y = 1\n  while c:\n    c = y\n  return c"
    assert _states_needed(src)
    # y is live after the if, but asked about only where returns set flags
    src = "def f(c):\n  if c:\n    y = 1\n  else:\n    y = 2\n  return y"
    assert not _states_needed(src)
    assert _states_needed(src, outputs=True)


def test_control_flow_needs_states_where_a_name_may_be_unbound_again():
    deletes = "def f(x, c):\n  del x\n  x = 1\n  if c:\n    x = 2\n  return x"
    handler = (
        "def f(e, c):\n  try:\n    g()\n  except E as e:\n    pass\n"
        "  if c:\n    e = 2\n  return e"
    )
    assert _states_needed(deletes)
    assert _states_needed(handler)


def test_control_flow_needs_states_for_an_if_after_a_jump():
    # (unreachable code has no states: every name starts undefined there)
    src = "def f(c):\n  raise E\n  if c:\n    c = 1\n  return c"
    assert _states_needed(src)
    src = (
        "def f(c):\n  if c:\n    raise E\n  else:\n    return 0\n"
        "  if c:\n    c = 1\n  return c"
    )
    assert _states_needed(src)
    # one that jumps on one path only is reachable after it
    src = "def f(c):\n  if c:\n    raise E\n  if c:\n    c = 1\n  return c"
    assert not _states_needed(src)
