"""One rewrite per module; `autograph.impl.transpiler` runs them in order."""
