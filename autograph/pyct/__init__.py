"""A generic Python-to-Python toolkit: parse, analyze, walk, compile.

It knows nothing of the runtime or of ``ag__``: it imports neither
``autograph.converters`` nor ``runtime``. Import its modules directly:

Example:
    >>> from autograph.pyct import naming, parser
    >>> parser.unparse(parser.parse_source("y = f(x)"))
    'y = f(x)'
    >>> naming.Namer(reserved={"f", "x", "y"}).new_symbol("y")
    'y_1'
"""
