"""The modules `make stdlib` converts, and the CPython tests it runs on them;
and the third-party packages `make thirdparty` converts, with their own tests.

Each entry: the modules whose functions are converted (pure Python, much
control flow), and the test modules of CPython's `test` package that
exercise them. Test modules that re-import their subject fresh
(`import_fresh_module`: decimal, datetime, heapq, bisect, json, ...) are left
out: they would test a copy nobody converted. So are modules whose tests
look at what conversion necessarily changes (README.md, "Left out").
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Entry:
    """Modules to convert and the tests that exercise them.

    `runner` is "unittest" (test modules of CPython's `test` package, by
    name) or "pytest" (a third-party package's test files, as paths below
    the directory its top package is installed in). A module ending in
    ".*" stands for every module of that package (its tests excepted).
    """

    modules: tuple[str, ...]
    tests: tuple[str, ...]
    runner: str = "unittest"

    @property
    def name(self) -> str:
        """The entry's name in reports: its first module."""
        return self.modules[0]


ENTRIES: tuple[Entry, ...] = (
    Entry(("argparse",), ("test.test_argparse",)),
    Entry(("configparser",), ("test.test_configparser",)),
    Entry(("textwrap",), ("test.test_textwrap",)),
    Entry(("difflib",), ("test.test_difflib",)),
    Entry(("tomllib._parser", "tomllib._re"), ("test.test_tomllib",)),
    Entry(("re._parser", "re._compiler", "re._casefix"), ("test.test_re",)),
    Entry(("statistics",), ("test.test_statistics",)),
    Entry(("fractions",), ("test.test_fractions",)),
    Entry(("ipaddress",), ("test.test_ipaddress",)),
    Entry(("shlex",), ("test.test_shlex",)),
    Entry(("string",), ("test.test_string",)),
    Entry(("html.parser", "_markupbase"), ("test.test_htmlparser",)),
    Entry(("html",), ("test.test_html",)),
    Entry(("colorsys",), ("test.test_colorsys",)),
    Entry(("base64",), ("test.test_base64",)),
    Entry(("calendar",), ("test.test_calendar",)),
    Entry(("fnmatch",), ("test.test_fnmatch",)),
    Entry(("posixpath", "genericpath"), ("test.test_posixpath",)),
    Entry(("ntpath",), ("test.test_ntpath",)),
    Entry(("getopt",), ("test.test_getopt",)),
    Entry(("optparse",), ("test.test_optparse",)),
    Entry(("pprint",), ("test.test_pprint",)),
    Entry(("reprlib",), ("test.test_reprlib",)),
    Entry(("urllib.parse",), ("test.test_urlparse",)),
    Entry(("graphlib",), ("test.test_graphlib",)),
    Entry(("copy",), ("test.test_copy",)),
    Entry(("gettext",), ("test.test_gettext",)),
    Entry(("netrc",), ("test.test_netrc",)),
    Entry(("quopri",), ("test.test_quopri",)),
    Entry(("random",), ("test.test_random",)),
    Entry(("plistlib",), ("test.test_plistlib",)),
    Entry(("sched",), ("test.test_sched",)),
    Entry(("glob",), ("test.test_glob",)),
    Entry(("filecmp",), ("test.test_filecmp",)),
    Entry(("collections",), ("test.test_collections",)),
    Entry(("pathlib",), ("test.test_pathlib",)),
    Entry(("dataclasses",), ("test.test_dataclasses",)),
    Entry(("http.cookiejar",), ("test.test_http_cookiejar",)),
    Entry(("http.cookies",), ("test.test_http_cookies",)),
    Entry(("csv",), ("test.test_csv",)),
    Entry(("mimetypes",), ("test.test_mimetypes",)),
    Entry(("fileinput",), ("test.test_fileinput",)),
    Entry(("cmd",), ("test.test_cmd",)),
    Entry(("timeit",), ("test.test_timeit",)),
    Entry(("tabnanny",), ("test.test_tabnanny",)),
    Entry(("xml.dom.minidom",), ("test.test_minidom",)),
    Entry(("enum",), ("test.test_enum",)),
    Entry(("email.utils", "email._parseaddr"), ("test.test_email.test_email",)),
    Entry(("logging",), ("test.test_logging",)),
    Entry(
        ("email._header_value_parser",),
        ("test.test_email.test__header_value_parser",),
    ),
    Entry(("shutil",), ("test.test_shutil",)),
    Entry(("typing",), ("test.test_typing",)),
    Entry(("inspect",), ("test.test_inspect",)),
    Entry(("pstats",), ("test.test_pstats",)),
    Entry(("encodings.punycode", "encodings.idna"), ("test.test_codecs",)),
    Entry(
        ("email.feedparser", "email.message", "email.header", "email._policybase"),
        ("test.test_email.test_email",),
    ),
    Entry(("wave",), ("test.test_wave",)),
    Entry(("zipapp",), ("test.test_zipapp",)),
    Entry(("zipfile",), ("test.test_zipfile",)),
    Entry(("tarfile",), ("test.test_tarfile",)),
    Entry(("pickletools",), ("test.test_pickletools",)),
    Entry(("locale",), ("test.test_locale",)),
)


def _tests(directory: str, names: str) -> tuple[str, ...]:
    """The test files `test_NAME.py` of `directory`, for each name."""
    return tuple(f"{directory}/test_{name}.py" for name in names.split())


THIRD_PARTY: tuple[Entry, ...] = (
    # Arbitrary-precision arithmetic: integer loops, precision juggling.
    Entry(
        ("mpmath.*",),
        _tests(
            "mpmath/tests",
            "basic_ops bitwise calculus compatibility convert diff division "
            "elliptic fp functions functions2 gammazeta hp identify interval "
            "levin linalg matrices mpmath pickle power rootfinding special str "
            "summation trig",
        ),
        "pytest",
    ),
    # Number theory and permutation groups: long functions, nested loops
    # with break/else, early returns, a parameter named like an import.
    Entry(("sympy.ntheory.*",), ("sympy/ntheory/tests",), "pytest"),
    Entry(
        ("sympy.combinatorics.*",),
        _tests(
            "sympy/combinatorics/tests",
            "generators graycode group_constructs named_groups partitions "
            "pc_groups permutations polyhedron prufer rewriting schur_number "
            "subsets testutil util free_groups galois",
        ),
        "pytest",
    ),
    # Dense polynomial arithmetic, factoring and root isolation (lists of
    # coefficients in nested loops), a SAT solver, the iterables toolbox.
    Entry(
        (
            "sympy.polys.densebasic",
            "sympy.polys.densearith",
            "sympy.polys.densetools",
            "sympy.polys.euclidtools",
            "sympy.polys.factortools",
            "sympy.polys.sqfreetools",
            "sympy.polys.galoistools",
            "sympy.polys.rootisolation",
            "sympy.polys.monomials",
            "sympy.polys.orderings",
            "sympy.logic.algorithms.dpll",
            "sympy.logic.algorithms.dpll2",
            "sympy.utilities.iterables",
        ),
        (
            *_tests(
                "sympy/polys/tests",
                "densebasic densearith densetools euclidtools factortools "
                "sqfreetools galoistools rootisolation monomials orderings",
            ),
            *_tests("sympy/logic/tests", "dimacs inference"),
            *_tests("sympy/utilities/tests", "iterables"),
        ),
        "pytest",
    ),
    # Numerical optimization on NumPy values: line searches, root finders,
    # trust regions (test__numdiff is left out: it pickles `rosen`, which
    # its module imported before the harness replaced it, by reference).
    Entry(
        (
            "scipy.optimize._optimize",
            "scipy.optimize._linesearch",
            "scipy.optimize._zeros_py",
            "scipy.optimize._nonlin",
            "scipy.optimize._numdiff",
            "scipy.optimize._trustregion",
            "scipy.optimize._trustregion_ncg",
            "scipy.optimize._trustregion_dogleg",
            "scipy.optimize._bracket",
            "scipy.optimize._chandrupatla",
            "scipy.optimize._spectral",
            "scipy.optimize._root_scalar",
            "scipy.optimize._minimize",
            "scipy.optimize._dcsrch",
        ),
        _tests(
            "scipy/optimize/tests",
            "linesearch zeros bracket chandrupatla _spectral nonlin trustregion",
        ),
        "pytest",
    ),
    # Graph algorithms behind decorators that compile their own wrappers
    # (argmap) and dispatchers (`orig_func`), with generators everywhere.
    # Left out: test_edge_kcomponents, whose subject applies an argmap
    # decorator inside a function (README's known limit: such a function
    # made in converted code closes over `ag__`, and argmap's new code has
    # no cell for it); users' calls of networkx stay unconverted.
    Entry(
        (
            "networkx.algorithms.*",
            "networkx.classes.*",
            "networkx.generators.*",
            "networkx.utils.union_find",
            "networkx.utils.heaps",
            "networkx.utils.mapped_queue",
            "networkx.utils.misc",
            "networkx.utils.rcm",
            "networkx.utils.random_sequence",
        ),
        (
            "networkx/algorithms/flow/tests",
            "networkx/utils/tests",
            *_tests("networkx/algorithms/isomorphism/tests", "isomorphism vf2userfunc"),
            *_tests(
                "networkx/algorithms/centrality/tests",
                "betweenness_centrality closeness_centrality degree_centrality",
            ),
            *_tests("networkx/algorithms/community/tests", "label_propagation kclique"),
            *_tests("networkx/algorithms/approximation/tests", "clique vertex_cover"),
            "networkx/algorithms/shortest_paths/tests",
            "networkx/algorithms/traversal/tests",
            "networkx/algorithms/components/tests",
            "networkx/algorithms/coloring/tests",
            "networkx/algorithms/operators/tests",
            *_tests(
                "networkx/algorithms/connectivity/tests",
                "connectivity cuts disjoint_paths edge_augmentation kcomponents "
                "kcutsets stoer_wagner",
            ),
            *_tests("networkx/algorithms/tree/tests", "branchings recognition mst"),
            *_tests(
                "networkx/algorithms/tests",
                "dag cycles simple_paths euler matching bridges cluster core chains "
                "dominance mis triads tournament cuts boundary distance_measures "
                "clique lowest_common_ancestors voronoi",
            ),
        ),
        "pytest",
    ),
)
"""Third-party packages (`make thirdparty`, where they are installed: none
but NumPy is a dependency): code nobody here wrote, with tests of its own."""
