"""Plain Python functions to convert: `autograph examples/demo.py`.

Nothing here imports autograph at the top: the CLI reads this file as text
and prints what each function becomes. Run as a script, it checks that the
converted functions compute what the originals do.
"""


def relu(x):
    if x > 0:
        return x
    return 0


def collatz(n):
    steps = 0
    while n != 1:
        if n % 2 == 0:
            n = n // 2
        else:
            n = 3 * n + 1
        steps += 1
    return steps


def first_multiple(numbers, k):
    found = None
    for n in numbers:
        if n % k == 0:
            found = n
            break
    return found


def index_of(items, target):
    for i, item in enumerate(items):
        if item == target:
            return i
    return -1


if __name__ == "__main__":
    import autograph

    # On plain Python values the converted functions run as the originals do;
    # on graph tensors they build graph ops instead.
    cases = [
        (relu, (-2.0,)),
        (relu, (3.0,)),
        (collatz, (27,)),
        (first_multiple, ([3, 5, 10, 12], 4)),
        (index_of, (["a", "b", "c"], "c")),
    ]
    for function, args in cases:
        result = autograph.to_graph(function)(*args)
        assert result == function(*args), function.__name__
        print(f"{function.__name__}{args} = {result}")
