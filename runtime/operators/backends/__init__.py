"""Backends of the staging core (`runtime.operators.staging`).

Each backend provides the `staging.backend.Backend` primitives and builds
its loops: the graph runtime (`graph`, `graph_trial`, `graph_loops`) and
JAX (`jax`, `jax_values`, `jax_loop_state`, `jax_loops`, imported only
once JAX is). `runtime.operators.graph_backend` and `jax_backend` register
them in the dispatch tables.
"""
