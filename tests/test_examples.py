"""Every example script runs, and prints the lines that make its point.

Each script in `examples/` (but `demo.py`, which has its own checks) runs in
a subprocess, as `make examples` runs it, with the repository on PYTHONPATH
and one BLAS thread.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "examples"
NOT_HERE = {"demo.py"}
NEEDS_JAX = {"jax_control_flow.py"}

# Lines each example must print (each must appear as a whole line, in order).
EXPECTED: dict[str, list[str]] = {
    "datasets.py": [
        "from_generator(small_data): 4 nodes, 1 constant elements",
        "from_tensors(small_data): 5 nodes, 7 constant elements",
        "  the same loss each way: {3}",
        "from_generator(big_data): 4 nodes, 1 constant elements",
        "from_tensors(big_data): 5 nodes, 20001 constant elements",
        "from_tensor_slices(big_data): 5 nodes, 20001 constant elements",
        "  the same loss each way: {10000}",
        "total(10 elements): 45.0",
        "total(10,000 elements, break after 1000): 500500.0",
        "    dataset: DatasetSpec(TensorSpec(shape=(), dtype=rt.float32))",
    ],
    "train_regression.py": [
        "below 0.01: True",
        "traces: 1",
        "graph loops: 1",
    ],
    "graphs_vs_functions.py": [
        "plain Python function: [[12.]]",
        "Function (graph):      [[12.]]",
        "same result: True",
        "outer_function: [[12.]]",
    ],
    "to_code_and_graph.py": [
        "First branch, with graph: 1",
        "Second branch, with graph: 0",
        "def simple_relu(x):",
        "nodes: ['x', 'const', 'greater', 'cond']",
    ],
    "polymorphism.py": [
        "traces: 3",
        "my_relu(x)",
        "my_relu(x=[1, -1])",
        "Tracing with int32",
        "Tracing with float32",
        "ConcreteFunction double(a)",
        "ConcreteFunction pow_(a, b=2)",
        "    a: float32 Tensor, shape=<unknown>",
        "square(10.0) = 100.0",
        "TypeError: pow_(): argument 'b' was traced with the Python value 2, got "
        "int 3; this ConcreteFunction was traced for pow_(a, b=2); call the "
        "Function (or get_concrete_function) to trace another signature",
        "Tracing with (None,)",
        "ValueError: next_collatz(): argument 'x' must have a shape compatible "
        "with (None,), got shape (2, 2); pass a compatible value, or change the "
        "input_signature",
        "TypeError: next_collatz(): argument 'x' must be an int32 tensor, got a "
        "float32 tensor; cast it with rt.cast(x, rt.int32), or pass a compatible "
        "value, or change the input_signature",
    ],
    "print_vs_rt_print.py": [
        "Calculating MSE!",
        "MSE: 5",
        "Traced with 1",
        "Executed with 1",
        "Executed with 1",
        "Traced with 2",
        "Executed with 2",
    ],
    "run_functions_eagerly.py": [
        "graph execution:",
        "Calculating MSE!",
        "functions_run_eagerly(): True",
        "eager execution:",
        "Calculating MSE!",
        "Calculating MSE!",
        "Calculating MSE!",
        "functions_run_eagerly(): False",
        "graph: 5 eager: 5",
    ],
    "non_strict_execution.py": [
        "rt.Tensor([0.], shape=(1,), dtype=float32)",
        "rt.print is an effect: it runs, x = [0]",
        "rt.Tensor([0.], shape=(1,), dtype=float32)",
    ],
    "speedup.py": [],
    "when_tracing_happens.py": [
        "Tracing!",
        "rt.Tensor(6, shape=(), dtype=int32)",
        "rt.Tensor(11, shape=(), dtype=int32)",
        "Tracing!",
        "rt.Tensor(6, shape=(), dtype=int32)",
        "Tracing!",
        "rt.Tensor(11, shape=(), dtype=int32)",
        "traces: 3",
        "Tracing!",
        "Executing",
        "Tracing!",
        "Executing",
    ],
    "python_vs_tensor_arguments.py": [
        "Tracing with num_steps = 10",
        "Executing with num_steps = 10",
        "Tracing with num_steps = 20",
        "Executing with num_steps = 20",
        "Traces are reused for Tensor arguments.",
        "traces: 3",
        "RetracingWarning: scaled has been traced 6 times; tracing is expensive. "
        "Its argument 'factor' keeps changing: 6 different Python values so far "
        "(0, 1, 2, ...), and each one traces a new graph. Pass it as a tensor "
        "(e.g. rt.constant(factor)) instead, or fix the signature with "
        "input_signature=[rt.TensorSpec(...)] (None dimensions match any size).",
    ],
    "side_effects_and_iterators.py": [
        "Python side effect",
        "len(external_list) = 1",
        "Value: 1",
        "Value: 1",
        "Value: 1",
        "Buggy: 2",
        "Correct: 2",
        "Buggy: 2",
        "Correct: 101",
        "20.0",
        "20.0",
        "20.0",
        "25.0",
    ],
    "control_dependencies.py": [
        "f(1.0, 2.0) = 10.0",
        "a = 4.0 b = 6.0",
        "first 1",
        "second 2",
        "third 3",
        "first 10",
    ],
    "variables.py": [
        "ValueError: f() creates a rt.Variable at variables.py:17 on every call "
        "(its first call, f(x=1.0), traces twice to check): a Function may create "
        "Variables only on its first call, and only once. Create them outside the "
        "function, or create them once and reuse them (e.g. `if self.v is None: "
        "self.v = rt.Variable(...)`)",
        "initial value from the input: 2.0",
        "second call reuses it: 6.0",
        "1",
        "2",
        "1",
        "2",
        "3",
    ],
    "conditionals.py": [
        "Tracing fizzbuzz branch",
        "Tracing default branch",
        "fizz",
        "buzz",
        "fizzbuzz",
        "use_graph_if=True: clip(3.0) = 1.0",
        "use_graph_if=False: clip(3.0) = 3.0",
        "  ops: ['x']",
    ],
    "loops.py": [
        "def f(x):",
        "sum_even: 42",
    ],
    "dynamic_rnn.py": [
        "shape: (2, 3, 4)",
        "last step of each sequence: [3. 3.]",
        "one while node: ['while']",
    ],
    "jax_control_flow.py": [
        "plain jax.jit: TracerBoolConversionError",
        "autograph.jit: sqrt(2) = 1.41422 in 3 steps",
        "vmap: [2.0, 3.0, 10.0]",
        "def newton_sqrt(a):",
        "    steps, x = ag__.while_stmt(loop_test, loop_body, (steps, x))",
    ],
    "loop_pitfalls.py": [
        "ValueError: 'y' is assigned in the if branch of the graph `if` at "
        "loop_pitfalls.py:31 in 'defined_in_one_branch' but not when the condition "
        "is false (the `if` has no else), and it is used after the `if`; assign it "
        "before the `if` too, or in an else branch",
        "DTypeMismatch: loop variable 'total' changed dtype from int32 to float32 "
        "after one iteration; cast it before the loop",
        "ValueError: loop variable 'x' changed shape from (1,) to (2,) after one "
        "iteration; keep its shape the same in every iteration, or allow the change "
        "(None for a size that changes): call autograph.set_loop_options("
        "shape_invariants=[(x, (None,))]) first in the loop body, or pass "
        "shape_invariants to rt.while_loop",
        "ok: rt.Tensor(4, shape=(), dtype=int32)",
        "InvalidArgumentError: 'last' is read after the graph loop at "
        "loop_pitfalls.py:51, but no iteration has assigned it (Python: "
        "UnboundLocalError); give 'last' a value before the loop [Op:EnsureDefined] "
        "(node 'ensure_defined', created at loop_pitfalls.py:53)",
        "ok: rt.Tensor(1.0, shape=(), dtype=float32)",
        "ok: rt.Tensor([1. 1. 1. 1.], shape=(4,), dtype=float32)",
    ],
    # The TensorFlow guides ported cell by cell: each checks every statement
    # of its guide with asserts, so running to the end is the test.
    "guides/intro_to_graphs.py": [
        "function_to_get_faster: [[12.]]",
        "First branch, with graph: 1",
        "Second branch, with graph: 0",
        "intro_to_graphs: every statement checked",
    ],
    "guides/function_performance.py": [
        "train_loop(small dataset) contains 5 nodes in its graph",
        "train_loop(big dataset) contains 5 nodes in its graph",
        "function_performance: every statement checked",
    ],
}


def run_example(name: str) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, PYTHONPATH=str(ROOT), OPENBLAS_NUM_THREADS="1")
    return subprocess.run(
        [sys.executable, str(EXAMPLES / name)],
        capture_output=True,
        text=True,
        env=env,
        cwd=ROOT,
        timeout=300,
    )


def assert_lines_in_order(output: str, expected: list[str]) -> None:
    lines = output.splitlines()
    position = 0
    for line in expected:
        try:
            position = lines.index(line, position) + 1
        except ValueError:
            pytest.fail(f"missing (in order): {line!r}\n--- output:\n{output}")


def test_every_example_has_expected_lines():
    scripts = {p.name for p in EXAMPLES.glob("*.py")} - NOT_HERE
    guides = {f"guides/{p.name}" for p in (EXAMPLES / "guides").glob("*.py")}
    assert scripts | guides == set(EXPECTED)


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_example_runs_and_prints_its_key_lines(name):
    if name in NEEDS_JAX:
        pytest.importorskip("jax", reason="JAX is not installed (the 'jax' extra)")
    result = run_example(name)
    assert result.returncode == 0, result.stderr
    assert_lines_in_order(result.stdout, EXPECTED[name])


def test_the_speedup_example_prints_both_timings():
    out = run_example("speedup.py").stdout
    assert re.search(r"^Eager execution: [\d.]+ s for 200 calls$", out, re.M)
    assert re.search(r"^Graph execution: [\d.]+ s for 200 calls$", out, re.M)


def test_a_loop_over_python_data_unrolls_and_one_over_a_tensor_does_not():
    out = run_example("loops.py").stdout
    sizes = dict(re.findall(r"^(\S+) contains (\d+) nodes in its graph$", out, re.M))
    assert int(sizes["train(small_data)"]) < int(sizes["train(big_data)"])
    assert (
        sizes["train_on_tensor(rt.constant(small_data))"]
        == (sizes["train_on_tensor(rt.constant(big_data))"])
    )


def test_the_training_loss_falls_epoch_by_epoch():
    out = run_example("train_regression.py").stdout
    losses = [float(v) for v in re.findall(r"^epoch +\d+: loss ([\d.]+)$", out, re.M)]
    assert len(losses) == 9 and losses[-1] < losses[0] / 10


def test_a_graph_while_loop_returns_its_tensor():
    out = run_example("loops.py").stdout
    assert re.search(
        r"^rt\.Tensor\(\[[^\]]*\], shape=\(5,\), dtype=float32\)$", out, re.M
    )


def test_a_python_print_of_a_tensor_argument_runs_only_while_tracing():
    out = run_example("python_vs_tensor_arguments.py").stdout
    tensor_part = out.split("Traces are reused for Tensor arguments.")[1]
    assert tensor_part.count("Tracing with") == 1
