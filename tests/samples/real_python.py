"""Samples: what real Python code (the standard library) showed conversion
got wrong (issue 21): unpacking folded into a return, zero-argument
`super()` in converted bodies, comprehensions sharing names with loops in a
`try`, callees that cannot be converted, classes defined in functions; and
(issue 20's probes) methods called through a class, a scan into a list by
the range index."""

from . import Sample, tensors


def unpack_one_then_return(x, flag):
    if flag:
        (a,) = x
        return a
    return None


def unpack_two_then_return(x, flag):
    if flag:
        a, b = x
        return a, b
    return None


def unpack_in_one_branch(x, flag):
    if flag:
        (a,) = x
    else:
        a = 0
    return a


def metavar_like_argparse(action, flag):
    # argparse's help formatter: `metavar, = ...; return metavar`.
    result = action if isinstance(action, tuple) else (action,)
    if flag:
        (metavar,) = result
        return metavar
    return "%s" % ",".join(result)


def comprehension_reuses_loop_name_in_else(a, fs):
    try:
        while a > 0:
            a -= 1
            t = 1
    except Exception:
        pass
    else:
        x = [t for t in fs]
        return a, x
    return a


def comprehension_reuses_loop_name_in_handler(xs, fs):
    try:
        for t in xs:
            if t > 1:
                raise ValueError(t)
    except ValueError:
        y = [t * 2 for t in fs]
        return y
    finally:
        z = {t: 1 for t in fs}
    return len(z)


def comprehension_reuses_loop_name_in_finally(a, fs):
    try:
        pass
    finally:
        while a > 0:
            a -= 1
            t = 1
        x = [t for t in fs if (u := t)]
    return a, x, u


class Base:
    def __init__(self, label):
        self.label = label

    def name(self):
        return self.label


class SuperInBranch(Base):
    def name(self, flag=True):
        if flag:
            return "<" + super().name() + ">"
        return "?"


class SuperAfterRebinding(Base):
    def pick(self, other):
        if other is not None:
            other, n = other, 1
            return super().name() + str(n)
        else:
            n = 0
        return other.label + str(n)


class SuperInLoop(Base):
    def names(self, xs):
        out = []
        for x in xs:
            out.append(super().name() + str(x))
        return out

    def classes(self, xs):
        seen = []
        while xs:
            xs = xs[1:]
            seen.append(__class__.__name__)
        return seen


class SuperInit(Base):
    def __init__(self, label, loud):
        if loud:
            super().__init__(label.upper())
        else:
            super().__init__(label)


def super_in_branch(flag):
    return SuperInBranch("x").name(flag)


def super_after_rebinding(other):
    return SuperAfterRebinding("me").pick(other)


def super_in_loop(xs):
    obj = SuperInLoop("s")
    return obj.names(xs), obj.classes(xs)


def super_init_in_branch(loud):
    return SuperInit("keras", loud).label


def class_inside_function(n, k):
    total = 0

    class Counter(Base):
        scale = k

        def bump(self, x):
            nonlocal total
            if x > 0:
                total += x
                return x * self.scale
            return super().name()

    for i in range(n):
        Counter("c").bump(i - 1)
    return total, Counter("d").bump(-1), Counter.scale


def classes_in_branches_and_loops(n):
    k = 1
    if n > 0:

        class Picked:
            def get(self):
                return k

    else:

        class Picked:
            def get(self):
                return -k

    k = 5
    out = []
    for i in range(n):

        class Made:
            v = i

            def get(self):
                return self.v + k

        out.append(Made().get())
    k = 7
    return Picked().get(), out, Made().get() if n > 0 else None


_NAMESPACE = {}
exec("def made_by_exec(x):\n    return x + 1\n", _NAMESPACE)  # no source


def calls_function_without_source(n):
    if n > 0:
        return _NAMESPACE["made_by_exec"](n)
    return 0


class _Quiet:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


def class_after_a_return(a):
    # (found by the generator: the class stands in code no path reaches)
    with _Quiet():
        if a > 0:
            return a

            class Unreached:
                pass

        return -a
    return 0


class Ops:
    # Static and class methods called through the class, as library code
    # does (`Decimal._from_float(x)`, `Base.m(self, n)`): converted too.
    scale = 3

    @staticmethod
    def square(x):
        return x * x

    @classmethod
    def scaled(cls, x):
        if x > 0:
            return x * cls.scale
        return -x


def static_and_class_methods_in_loop(a, b):
    s = 0
    for i in range(a):
        s = s + Ops.square(i) + Ops.scaled(b)
    return s


class Parent:
    def m(self, n):
        if n > 0:
            return n * 2
        return -n


class Child(Parent):
    def m(self, n):
        r = Parent.m(self, n)  # the base method called through its class
        if n > 1:
            r = r + 1
        return r


def explicit_base_method_call(a, b):
    c = Child()
    s = 0
    for i in range(a):
        s = s + c.m(b)
    return s


def scan_into_list_by_index(a):
    # A cumulative sum written into a list by the range index (JAX users'
    # scans): the index must be a Python int, so the range loop unrolls.
    out = [0, 0, 0, 0]
    acc = 0
    for i in range(4):
        acc = acc + a * i
        out[i] = acc
    return out


def range_break_then_item_by_index(a, b):
    out = [0, 0, 0, 0]
    for i in range(4):
        if i > a:
            break
        out[i] = b + i
    return out


def divmod_then_loop(a):
    # divmod of a tensor (a graph tensor had no __divmod__).
    q, r = divmod(a + 10, 3)
    s = 0
    while q > 0:
        s = s + r
        q -= 1
    return s, divmod(7, a + 4)


SAMPLES = [
    Sample(unpack_one_then_return, [(("s",), True), (("s", "t"), True), ("ab", False)]),
    Sample(unpack_two_then_return, [("ab", True), ([1, 2, 3], True), ([1], True)]),
    Sample(unpack_in_one_branch, [((5,), True), ((5,), False), ((), True)]),
    Sample(metavar_like_argparse, [("spam", True), (("a", "b"), False)]),
    Sample(comprehension_reuses_loop_name_in_else, [(3, [1, 2]), (0, [])]),
    Sample(comprehension_reuses_loop_name_in_handler, [([1, 2], [3]), ([0], [4, 5])]),
    Sample(comprehension_reuses_loop_name_in_finally, [(3, [1]), (0, [2])]),
    Sample(super_in_branch, [(True,), (False,)]),
    Sample(super_after_rebinding, [(Base("y"),), (None,)]),
    Sample(super_in_loop, [([1, 2],), ([],)]),
    Sample(super_init_in_branch, [(True,), (False,)]),
    Sample(class_inside_function, [(4, 2), (0, 1)]),
    Sample(classes_in_branches_and_loops, [(2,), (-1,)]),
    Sample(calls_function_without_source, [(3,), (0,)]),
    Sample(class_after_a_return, [(3,), (-2,)]),
    Sample(
        static_and_class_methods_in_loop,
        [(3, 1), (0, 2), (2, -5)],
        tensors((3, 1), (0, 2), (2, -5)),
    ),
    Sample(
        explicit_base_method_call, [(3, 1), (2, 5)], tensors((3, 1), (2, 5), (1, -2))
    ),
    Sample(scan_into_list_by_index, [(3,), (-1,)], tensors((3,), (-1,))),
    # (graph/JAX: a break on a tensor makes it one staged loop, which
    # refuses `out[i]`, naming it and the line: no tensor arguments here)
    Sample(range_break_then_item_by_index, [(1, 5), (-1, 2)]),
    Sample(divmod_then_loop, [(3,), (-2,)], tensors((3,), (-2,))),
]
