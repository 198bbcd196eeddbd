"""`make stdlib`: pure-Python standard-library modules, every function
converted and forced to run converted, against CPython's own tests (see
README.md)."""
