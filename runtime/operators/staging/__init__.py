"""The statement-semantics core: the rules every staging backend shares.

A backend (the graph runtime, JAX, a test's toy backend) says how to build
a value-level primitive -- a check that a flag holds where a value is read,
an error raised when the compiled program runs a point -- through the small
`Backend` protocol (`staging.backend`). The rules about *what* a converted
statement means live here once:

- `staging.raising`: an error the user's code raises on a traced path is
  raised when the program runs that path; refused where a `try` around it
  would catch it (no staged program can).
- `staging.born`: names a loop may be the first to assign carry a flag, and
  reading one checks it where Python would raise UnboundLocalError; refused
  where a `try` would handle that error.
- `staging.returned`: a loop whose `return`s all give one list or dict of
  before the loop returns that object, not a new one holding its values.
- `staging.where`: the user's line of the statement being staged, recorded
  when the statement starts, so messages never name a library's frame.

See ARCHITECTURE.md, "The staging core".
"""
