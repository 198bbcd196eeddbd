"""A generic Python-to-Python toolkit: parse, annotate, template, compile.

It knows nothing of the runtime or of ``ag__``: it imports neither
``autograph.converters`` nor ``runtime``. Import its modules directly:

Example:
    >>> from autograph.pyct import parser, templates
    >>> parser.unparse(templates.replace("y = f(x)", f="g"))
    'y = g(x)'
"""
