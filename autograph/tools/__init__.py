"""Tools built on the compiler, for people reading its output.

- `source_file`: converts the functions of a file read as text (the CLI's core);
- `side_by_side`: original and converted code aligned in two columns;
- `highlight`: ANSI colours for Python source, with the standard `tokenize`;
- `size`: `python -m autograph.tools.size`, how long converted code gets.
"""
