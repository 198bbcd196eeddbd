import ast
import inspect
import textwrap

from autograph.pyct.static_analysis import activity


def _body(src: str) -> list[ast.stmt]:
    return ast.parse(src).body


def test_assignment_reads_its_value_and_writes_its_target():
    stmts = _body("y = x + 1")
    assert activity.reads(stmts) == {"x"}
    assert activity.writes(stmts) == {"y"}


def test_augmented_assignment_reads_and_writes_its_target():
    stmts = _body("z += y")
    assert activity.reads(stmts) == {"z", "y"}
    assert activity.writes(stmts) == {"z"}


def test_attribute_and_subscript_targets_only_read_the_base():
    stmts = _body("a.b = 1\nc[i] = 2")
    assert activity.reads(stmts) == {"a", "c", "i"}
    assert activity.writes(stmts) == set()


def test_nested_function_reads_its_free_names_and_binds_its_name():
    stmts = _body("def g(q=d):\n    w2 = 1\n    return q + w + w2")
    assert activity.reads(stmts) == {"d", "w"}
    assert activity.writes(stmts) == {"g"}


def test_comprehension_variables_stay_inside_but_walrus_targets_escape():
    stmts = _body("y = [k for k in r if (m := k)]")
    assert activity.reads(stmts) == {"r"}
    assert activity.writes(stmts) == {"y", "m"}


def test_imports_bind_their_top_level_name():
    assert activity.writes(_body("import os.path\nfrom a import b as c")) == {"os", "c"}


def test_del_writes_and_deletes_the_name():
    stmts = _body("del x")
    assert activity.writes(stmts) == {"x"}
    assert activity.deletes(stmts) == {"x"}


def test_local_names_exclude_global_and_nonlocal_declarations():
    fn = _body("def f(a):\n    global g\n    g = 1\n    b = 2")[0]
    assert activity.local_names(fn) == {"a", "b"}
    assert activity.declarations(fn) == {"g": "global"}


def test_a_nonlocal_two_levels_down_passes_through_the_middle_function():
    f = _body(
        "def f():\n"
        "    a = 0\n"
        "    def outer():\n"
        "        def inner():\n"
        "            nonlocal a\n"
        "            a = 5\n"
        "        inner()\n"
        "    outer()"
    )[0]
    outer = f.body[1]
    assert activity.local_names(outer) == {"inner"}
    assert activity.written_by_nested(f) == {"a"}
    assert activity.writes([outer]) == {"a", "outer"}
    assert activity.Cache().binds([outer]) == {"outer"}
    assert "a" in activity.cells(f)


def test_a_name_the_middle_function_binds_stops_a_nonlocal_below_it():
    f = _body(
        "def f():\n"
        "    a = 0\n"
        "    def outer():\n"
        "        def inner():\n"
        "            nonlocal a\n"
        "            a = 5\n"
        "        a = 1\n"
        "    outer()"
    )[0]
    assert activity.local_names(f.body[1]) == {"a", "inner"}
    assert activity.written_by_nested(f) == set()


def test_the_cache_gives_what_collect_gives_for_every_statement():

    from tests.samples import ALL_SAMPLES

    source = """
def f(xs, n):
    global g
    total = 0
    for i, x in enumerate(xs):
        if (y := x) > n:
            try:
                total += helper(y)
            except ValueError as error:
                del total
                total = error
            finally:
                done = True
        else:
            with open(x) as handle:
                lines = [line for line in handle]
    while total:
        def inner():
            nonlocal total
            total = 0
        inner()
    return total, lines, g
"""
    trees = [ast.parse(source).body[0]]
    for sample in ALL_SAMPLES:
        fn = inspect.unwrap(sample.fn)
        fn = getattr(getattr(fn, "func", fn), "__func__", getattr(fn, "func", fn))
        if fn.__name__ != "<lambda>":
            trees.append(ast.parse(textwrap.dedent(inspect.getsource(fn))).body[0])
    for tree in trees:
        cache = activity.Cache()
        statements = [n for n in ast.walk(tree) if isinstance(n, ast.stmt)]
        for stmt in reversed(statements):  # inner statements first, then outer
            found, expected = cache.of(stmt), activity.collect(stmt)
            for part in ("read", "written", "deleted", "walrus", "declared", "through"):
                assert getattr(found, part) == getattr(expected, part), (
                    ast.unparse(stmt),
                    part,
                )
        assert cache.writes(tree.body) == activity.writes(tree.body)


def test_a_converted_statement_in_a_handler_or_else_before_finally_uses_cells():
    # An exception may leave the `if` half-way; the finally block then reads
    # what it assigned before. Without a finally block nothing would.
    src = (
        "def f(n):\n  x = y = 0\n  try:\n    pass\n  except KeyError:\n"
        "    if n:\n      x = 1\n  else:\n    if n:\n      y = 1\n"
        "  finally:\n    g(x, y)"
    )
    assert activity.cells(ast.parse(src).body[0]) == {"x", "y"}
    no_finally = src.replace("  finally:\n    g(x, y)", "  g(x, y)")
    assert activity.cells(ast.parse(no_finally).body[0]) == set()


def test_a_name_the_finally_block_assigns_before_reading_is_no_cell():
    # Only a read that may see the half-way value needs the cell: a finally
    # block (or handler) that assigns `ob` first does not, on any path, so a
    # loop's `ob` (a SimpleNamespace, say) need not be a graph loop variable.
    src = (
        "def f(n):\n  try:\n    while n:\n      ob = Ns()\n      ob.v = n\n"
        "      n = n - ob.v\n  finally:\n    if n:\n      ob = Ns()\n"
        "      ob.v = 1\n      g(ob.v)\n"
    )
    assert activity.cells(ast.parse(src).body[0]) == {"n"}
    # Read on one path before it is assigned: a cell.
    read_first = src.replace(
        "    if n:\n      ob = Ns()\n", "    if n:\n      g(ob)\n      ob = Ns()\n"
    )
    assert activity.cells(ast.parse(read_first).body[0]) == {"n", "ob"}
    # Read after the try, where a handler swallowed the exception: a cell.
    after = src.split("  finally:")[0] + "  except ValueError:\n    pass\n  g(ob)\n"
    assert "ob" in activity.cells(ast.parse(after).body[0])


def test_cells_skips_only_walks_whose_trigger_survey_did_not_find():
    # The variables pass spares `cells` the walrus and try walks when the
    # survey found no walrus / try, and hands it the locals it has: on every
    # sample function, that must give what the full analysis gives (with
    # both walks always skipped, it does not).
    from autograph.core.survey import Marker, survey
    from autograph.pyct import parser
    from tests.samples import ALL_SAMPLES

    checked = 0
    for sample in ALL_SAMPLES:
        fn = getattr(sample.fn, "func", sample.fn)
        try:
            node = parser.parse_entity(fn).node
        except Exception:  # a lambda or callable the parser refuses
            continue
        if not isinstance(node, activity.FUNCTIONS):
            continue
        _, kinds = survey(node)
        scopes = []
        if not kinds.isdisjoint((Marker.NESTED_FUNCTION, ast.Lambda)):
            scopes = activity.nested_scopes(node)
        skipping = activity.cells(
            node,
            local=activity.local_names(node),
            walrus=ast.NamedExpr in kinds
            and not kinds.isdisjoint((ast.BoolOp, ast.IfExp)),
            tries=not kinds.isdisjoint(activity.TRIES),
            withs=ast.With in kinds or ast.AsyncWith in kinds,
            scopes=scopes,
            cache=activity.Cache(),
        )
        assert skipping == activity.cells(node), sample.id
        assert activity.written_by_nested(node, scopes) == (
            activity.written_by_nested(node)
        ), sample.id
        checked += 1
    assert checked > 100


def test_writes_of_parameters_and_names_are_what_a_walk_finds():
    # `writes` reads plain parameters and a lone name without a walk.
    sources = [
        "def f(a, /, b, *c, d, **e): pass",
        "def f(): pass",
        "def f(a=1, *, b): pass",
        "def f(a, *, b=(w := 2)): pass",
        "def f(a: (w := int), *c: (v := int), **e: int): pass",
        "def f(a=lambda q: q): pass",
    ]
    for src in sources:
        args = ast.parse(src).body[0].args
        found = activity.collect(args)
        assert activity.writes(args) == found.written | found.through, src
    names = [
        ast.parse("x = y").body[0].targets[0],  # stored
        ast.parse("x = y").body[0].value,  # read
        ast.parse("del z").body[0].targets[0],  # deleted
    ]
    for name in names:
        found = activity.collect(name)
        assert activity.writes(name) == found.written | found.through
        assert activity.reads(name) == found.read


def test_handled_lines_and_finally_blocks_of_nested_tries():
    # Statements only are walked, outside in: an inner `try` comes first
    # for its lines, and a nested function's `try` counts.
    fn = ast.parse(
        textwrap.dedent(
            """
            def f(a):
                try:
                    try:
                        a = 1
                    except KeyError:
                        a = 2
                    finally:
                        a = 3
                except (ValueError, errors.Bad):
                    def g():
                        try:
                            return 1
                        finally:
                            return 2
                for x in a:
                    try:
                        a = x
                    finally:
                        break
            """
        )
    ).body[0]
    outer = (3, frozenset({"ValueError", "Bad"}))
    assert activity.handled_lines(fn) == {
        4: (outer,),
        5: ((4, frozenset({"KeyError"})), outer),
        6: (outer,),
        7: (outer,),
        8: (outer,),
        9: (outer,),
        13: ((12, None),),
        18: ((17, None),),
    }
    assert activity.finally_blocks(fn) == {9: (4, 5, 7)}
