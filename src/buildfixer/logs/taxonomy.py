"""Map an error message to the failure taxonomy of docs/FORMATS.md.

The categories (syntax, resource_missing, configuration, library_unavailable,
ndk, test_failure, other) say what kind of repair a failure needs, so the
classifier asks "what must change to fix this?" rather than "which tool spoke?".

Rules are ordered phrase lists, first match wins. The order matters because the
messages parsers build often carry a wrapper and its cause together
("A problem occurred evaluating project ':app'. > Could not find com.x:y:1.0"):
the specific causes (JDK levels, missing artifacts, missing files, compiler
diagnostics) are tried before the generic wrappers ("A problem occurred
evaluating", "Compilation failed").
"""

from __future__ import annotations

from functools import lru_cache

from buildfixer.core.build_result import CATEGORIES
from buildfixer.logs.phrases import Phrases, fold


def _rx(*phrases: str) -> Phrases:
    """Case-insensitive regex phrases, any of which matches (searched fast: see logs.phrases)."""
    return Phrases(*phrases)


# A tool that ran out of memory (the JVM's heap or metaspace, node's heap). A repair raises the
# limit (`org.gradle.jvmargs`, `MAVEN_OPTS`, `--max-old-space-size`); triage reads the same words
# as the machine's part of a failure (triage.signals).
OUT_OF_MEMORY = (
    r"Java heap space|OutOfMemoryError|GC overhead limit exceeded|\bMetaspace\b",
    r"insufficient memory for the Java Runtime",
    r"JavaScript heap out of memory",
    # The kernel's OOM killer ends a process with SIGKILL: exit 137 (128 + 9).
    r"(?:exit (?:value|code|status)|exited with(?: code)?) 137\b",
)

# A tool the build runs that is not installed, for any backend: Rust and Cargo for maturin and
# setuptools-rust, a C compiler or linker for an extension, CMake for a pip build, Python or Visual
# Studio for node-gyp, Xcode's command line tools. The repair installs it or points the build at
# it. Before the NDK rules: these messages name cmake and clang without being native code errors.
TOOLCHAIN_MISSING = (
    r"can't find (?:a )?Rust compiler|Cargo, the Rust package manager, is not installed",
    r"\b(?:rustc|cargo|Rust|rustup)\b[^.\n]{0,40}\b(?:is not installed|not found|is required to)",
    r"is not installed or (?:is )?not (?:on|in) (?:the |your )?PATH",
    r"linker `[^`]+` not found",
    r"No CMAKE_\w+_COMPILER could be found|CMake (?:must be installed|is not installed|is required to)",
    r"\bcmake(?:\.exe)?: (?:command )?not found|Could not find (?:the )?CMake\b",
    r"(?:unable to execute|command) '[\w.+-]+':? (?:failed: )?"
    r"(?:No such file or directory|failed with exit code 127)",
    r"gyp ERR! (?:find Python|find VS|stack Error: Can't find Python)",
    r"Could not find any Python installation to use",
    r"(?:C|C\+\+|Fortran) compiler (?:cannot create executables|not found|is not (?:installed|available))",
    r"no acceptable C compiler found|Unable to find a (?:C|C\+\+) compiler",
    r"xcrun: error: invalid active developer path",
    # maturin, cargo and build scripts of Rust crates (prost's `protoc`), meson-python, scikit-build.
    r"(?:Failed to|could not|couldn't) (?:find|locate) `?(?:cargo|rustc)\b|requires rustc [\d.]+ or newer",
    r"Could not find `[\w.-]+`(?: installation)?|Unknown compiler\(s\)|Did not find (?:a )?\w+ compiler",
    r"Compiler \S+ can not compile programs|unable to find a build program corresponding to",
    r"Did not find pkg-config",
    # node-gyp looking the tool up on PATH (`gyp ERR! stack Error: not found: make`).
    r"\bnot found: (?:make|gmake|python[\d.]*|g\+\+|gcc|c\+\+|cc|clang|cmake|ninja|msbuild)\b",
)

# The environment refuses the install or the run, whatever the project says: PEP 668's
# externally managed interpreter, a `--user` install inside a virtualenv, a folder the user may not
# write, an engine range the installed node is outside of (yarn's wording).
ENVIRONMENT_REFUSAL = (
    r"externally[- ]managed[- ]environment|\bis externally managed\b",
    r"Can not perform a '--user' install|User site-packages are not visible",
    r"\bEACCES\b|\[Errno 13\] Permission denied|: Permission denied$",
    r"Could not install packages due to an (?:OSError|EnvironmentError)",
    r"The engine \S+ is incompatible with this module",
)

# Gradle's configuration cache and build cache: a task or plugin that does what the cache cannot
# store (reads `Task.project` at execution time, starts a process while configuring), or a
# cache entry that cannot be stored or loaded. The fix is in the build scripts or their settings.
BUILD_CACHE = (
    r"Configuration cache problems found|problems? (?:was|were) found (?:storing|reusing|loading)"
    r" the configuration cache",
    r"Configuration cache state could not be cached|configuration cache (?:entry|report)",
    r"Could not (?:serialize|load) value of type|cannot serialize object of type",
    r"at execution time is (?:unsupported|not supported)",
    r"not (?:yet )?(?:compatible|supported) with the configuration cache|notCompatibleWithConfigurationCache",
    r"Could not (?:load|store) (?:cache )?entry \S+ (?:from|in) (?:the )?(?:local |remote )?build cache",
    r"(?:Failed|Unable) to (?:load|store) (?:entry|cache entry) ",
)

# Settings problems whose messages also carry NDK or dependency words (a packaging
# conflict between two libraries' `.so` files mentions CMake; a Jetifier transform
# that ran out of memory sits inside "Could not resolve all files").
_CONFIG_FIRST = _rx(
    r"(?<!\d)\d+ files found with path '",  # from a number's first digit: linear on long ones
    r"More than one file was found with OS independent path",
    r"MergeNativeLibs",
    *OUT_OF_MEMORY,
    *TOOLCHAIN_MISSING,
    *ENVIRONMENT_REFUSAL,
    *BUILD_CACHE,
    r"incompatible Java [\d.]+ and Gradle",
    # Node 17+ (OpenSSL 3) refusing the MD4 hash old webpack versions use.
    r"digital envelope routines|ERR_OSSL_EVP_UNSUPPORTED",
)

_NDK = _rx(
    r"\bndk\b",
    r"ninja: error:",
    r"ndk-build",
    r"\bcmake\b",
    r"externalNativeBuild",
    r"ninja: build stopped",
    r"\[CXX\d{4}\]",
    r"\bclang(?:\+\+)?: error",
    r"\.(?:c|cc|cpp|cxx|h|hpp):\d+:\d+: (?:fatal )?error",
    r"undefined reference to `",
    r"No toolchains found in the NDK",
    r"ANDROID_NDK",
    r"\bJNI\b.*not found",
)

_TEST = _rx(
    r"There were failing tests",
    r"There are test failures",
    r"Tests run: \d+, Failures: [1-9]",
    r"Tests run: \d+, Failures: \d+, Errors: [1-9]",
    r"\b\d+ tests? completed, \d+ failed",
    r"Failed tests:",
    r"Tests in error:",
    r"AssertionFailedError|ComparisonFailure|\bAssertionError\b",
    r"expected:\s*<.*> but was:\s*<",
    r"\bFAILED\b.*::",
    r"(?<!:)::\S+ FAILED\b",  # from a run of colons' first: linear on a long one
    r"\b\d+ failed(?:,| in )",
    # `(?:(?!X).)*`, not `.*`, after a phrase X that a line may repeat: the same lines match (the
    # last X before the word will do), without rescanning the line from every X (quadratic).
    r"Test Suites?: (?:(?!Test Suites?: ).)*\bfailed\b",
    r"\btest(?:s)? failed\b",
    r"> \w+ FAILED$",
)

# Wrong settings in build files or the environment that are recognisable on their
# own, even when the message also names an artifact (e.g. "No matching variant of
# com.android.tools.build:gradle:8.1.0 ... compatible with Java 11").
_CONFIG_SPECIFIC = _rx(
    r"invalid (?:source|target) release",
    r"source release \S+ requires target release",
    r"Java compiler is not available",
    r"Main class name has not been configured|No main class specified",
    r"Microsoft Visual C\+\+ [\d.]+ (?:or greater )?is required",
    r"Could not find any Visual Studio installation|\bfind VS\b",
    r"release version \d+ not supported",
    r"(?:Source|Target) option \S+ is no longer supported",
    r"not supported in -(?:source|release) \d",  # a feature above the level compiled for
    r"Unsupported class file major version",
    r"Setting a Security Manager is not supported",  # an old tool on JDK 24+
    r"class file (?:has wrong )?version \d+",
    r"compiled by a more recent version of the Java",
    r"UnsupportedClassVersionError",
    r"requires (?:Java|JDK|JVM) (?:version )?\d+",
    # The interpreter is outside the project's requires-python (pip, uv, poetry).
    r"requires a different Python|the project's Python requirement|does not satisfy Python\s*[<>=!~^]",
    r"project's (?:Python requirement|supported Python range) \(|is not allowed by the project \(",
    r"compatible with Java \d+",
    r"(?:Java|JDK) \d+ (?:or (?:higher|later|newer) )?is required",
    r"Minimum supported (?:Gradle|Android Gradle plugin|Kotlin) version",
    r"requires (?:Gradle|Android Gradle plugin|AGP|Kotlin|Maven|node|npm) (?:version )?\d",
    r"Unsupported (?:Java|JDK|Gradle|engine)",
    r"\bincompatible (?:with )?(?:Java|JDK|Gradle)\b",
    r"SDK location not found",
    r"\bANDROID_(?:HOME|SDK_ROOT)\b",
    r"\bsdk\.dir\b",
    r"JAVA_HOME",
    # A Java home, JDK or toolchain path a property or flag names that holds no usable JDK.
    # (Older Gradle versions word the property error `Java home supplied via 'org.gradle.java.home' is
    # invalid. Invalid directory: ...`.)
    r"given for [\w.-]+ Gradle property is invalid|Java home supplied (?:via '[\w.-]+' )?is invalid",
    r"supplied javaHome (?:seems to be|is) invalid|cannot find the java executable",
    r"(?:Toolchain installation|Provisioned toolchain) '[^']*' "
    r"(?:could not be (?:found|probed)|does not exist)",
    r"could not find the required JDK tools|running on a JDK, not (?:a )?JRE",
    r"Could not find tools\.jar",
    r"Could not initialize class org\.codehaus\.groovy",
    r"Could not open (?:init )?(?:generic )?(?:class )?cache",
    r"Could not open cp_(?:init|proj|settings|dsl)",
    r"BUG! exception in phase",
    r"No (?:matching )?(?:Java )?toolchains? (?:found|matching)",
    r"Cannot find a Java installation",
    r"Could not (?:get|set) unknown property",
    r"Could not find method \S+\(\) for arguments",
    r"No signature of method",
    r"Script compilation errors?",
    r"Could not compile (?:build|settings|initialization) (?:file|script)",
    r"\bstartup failed\b",
    r"Non-parseable (?:POM|settings)",
    r"Malformed POM",
    r"'[\w.]+' for \S+ is missing",
    r"no POM in this directory",
    r"Unknown lifecycle phase",
    r"is not part of the build defined by settings file",
    r"does not contain a Gradle build",
    r"Task '\S+' not found in (?:root )?project",
    r"specified for property '.*' does not exist",
    r"(?:Directory|Path|location) '?[^']*'? (?:specified .*)?does not exist",
    r"is set to an invalid directory",
    r"must be a valid (?:directory|path|file)",
    r"does not point to a valid",
    r"RequireJavaVersion|RequireMavenVersion|Enforcer rules? (?:(?!Enforcer rules? ).)*failed",
    r"Manifest merger failed",
    r"Namespace not specified",
    r"compileSdk(?:Version)? is not specified",
    r"Missing script: ",
    # An import through an alias (`@/x`, `~/x`, `#x`, `$lib/x`) that no resolver setting maps.
    r"(?:\bresolve(?: import| module)?|find module) [\"'`]?(?:[@~]{1,2}/|[#$])",
    r"Android Gradle plugin requires",
    # A plugin Gradle itself used to ship, applied by id in a Gradle that no longer has it (a build
    # written for an older Gradle): jetty (removed in 4.0), sonar and sonar-runner (3.0), osgi,
    # findbugs, jdepend and compare-gradle-builds (6.0), maven (7.0), announce and
    # build-announcements (8.0). A plugin resolved from a repository stays a missing library.
    r"Plugin with id '(?:jetty|sonar(?:-runner)?|osgi|findbugs|jdepend|compare-gradle-builds|maven"
    r"|announce|build-announcements)' not found",
    # javac reading sources in the platform's encoding, not the one they are written in: the
    # build's encoding setting (`-encoding`, `project.build.sourceEncoding`, `options.encoding`).
    # In English, German, and (no ASCII run to prefilter on) Chinese and Japanese, old and new
    # wordings (`编码GBK的不可映射字符`, `编码 GBK 的不可映射字符 (0xAF)`,
    # `エンコーディングMS932にマップできない文字です`,
    # `この文字(0x80)は、エンコーディングMS932にマップできません`).
    r"unmappable character (?:\(0x[0-9a-f]+\) )?for encoding",
    r"nicht zuordenbares Zeichen",
    r"编码\s?[A-Za-z0-9_.:-]+\s?的不可映射字符|エンコーディング\s?[A-Za-z0-9_.:-]+\s?にマップでき",
    r"\bcommand not found\b|: not found$|is not recognized as an internal or external command",
)

_LIBRARY = _rx(
    r"Could not find (?!method\b)[\w.-]+:[\w.-]+",
    r"Could not resolve (?:all |dependencies|[\w.-]+:[\w.-]+|plugin artifact)",
    r"Could not find artifact",
    r"Could not transfer (?:artifact|metadata)",
    r"could not be resolved",
    r"Failed to collect dependencies",
    r"Failed to read artifact descriptor",
    r"Non-resolvable (?:parent|import) POM",
    r"Plugin \[id: .*\] was not found",
    r"was not found in any of the following sources",
    r"No plugin found for prefix",
    r"\bplugin\b.*\bnot found\b",
    r"package [\w.]+ does not exist",
    r"No matching (?:variant|version)s? ",
    r"No cached version .* available for offline mode",
    r"Could not (?:GET|HEAD|download) ",
    r"Received status code (?:40[134]|50\d)",
    r"Failed to resolve: ",
    r"Missing artifact ",
    r"(?:Artifact|Dependency) \S+ not found",
    r"Unable to resolve dependency",
    r"ModuleNotFoundError|No module named ",
    r"Could not find a version that satisfies the requirement",
    r"No matching distribution found",
    r"\bE404\b|\b404 Not Found\b|Not Found - 404|ERR_PNPM_FETCH_404|is not in (?:the|this) (?:npm )?registry",
    r"\bERESOLVE\b|unable to resolve dependency tree",
    # The declared dependencies and the lockfile disagree, and a frozen install refuses to guess
    # (pnpm's ERR_PNPM_OUTDATED_LOCKFILE, `npm ci`, yarn's --frozen-lockfile).
    r"ERR_PNPM_OUTDATED_LOCKFILE|specifiers in the lockfile|lockfile needs to be updated",
    r"package\.json and package-lock\.json (?:or npm-shrinkwrap\.json )?are (?:not )?in sync",
    r"Cannot find module '[^']+'(?: or its corresponding type declarations)?",
    r"Cannot find package '(?![./]|[A-Za-z]:[\\/])",  # node's ESM loader, bare specifiers
    # tsc: a `types` entry or `/// <reference types>` whose @types package is not installed.
    r"Cannot find type definition file for '",
    # javac: a `requires` of module-info.java that no module on the module path provides
    # (lower case only: webpack's "Module not found: Error: Can't resolve './x'" is a missing file).
    r"(?-i:\bmodule not found: [\w.]+)",
    r"import [\w.]+ cannot be resolved",
    r"fatal error: [\w/.+-]+\.h(?:pp|h|xx)?: No such file",
    r"cannot find -l[\w.+-]+",
    r"was not found in the pkg-config search path",
    r"(?:Could not|Couldn't) resolve the package|Not found: 'package:",
    r"Unable to resolve module (?![./])",
    # Bundlers (webpack, Vite/Rollup) naming a bare package they cannot find.
    r"Can't resolve '(?![./]|[A-Za-z]:[\\/])",
    r"failed to resolve import \"(?![./]|[A-Za-z]:[\\/])",
)

_RESOURCE = _rx(
    r"File not found",
    r"FileNotFoundException|FileNotFoundError",
    r"No such file or directory",
    r"\bENOENT\b",
    r"Could not read script '.*' as it does not exist",
    r"\bresource \S+ (?:\(aka \S+\) )?not found",
    r"Resource (?:\S+ )?not found",
    r"properties file",
    r"could not be loaded from (?:File|file|path)",
    r"keystore file (?:(?!keystore file ).)*not found",  # case-insensitive: `Keystore file` too
    r"google-services\.json",
    r"(?:file|directory) '[^']*' (?:does not exist|not found|is missing)",
    r"Cannot find (?:the )?(?:file|resource)",
    r"Unable to resolve module [./]",
    r"Can't resolve '|failed to resolve import \"",
    r"\bmissing (?:file|resource)\b",
    r"No rule to make target",
    r"does not exist(?! on type)",
)

_SYNTAX = _rx(
    r"cannot find symbol",
    r"(?:'[^']*'|<\w+>|record|enum) expected",
    r"illegal (?:start|character|escape)",
    r"incompatible types",
    r"cannot be applied to (?:given types|\()",
    r"no suitable (?:method|constructor)",
    r"cannot be converted to",
    r"not a statement",
    r"unclosed (?:string|comment|character)",
    r"reached end of file while parsing",
    r"does not override|is not abstract and does not override",
    r"is already defined",
    r"might not have been initialized",
    r"unreachable statement|missing return statement",
    r"cannot be referenced from a static context",
    r"has private access|is not public in",
    r"unreported exception",
    r"bad operand types?",
    r"cannot infer type",
    r"cannot inherit from final",
    r"Unresolved reference",
    r"Type mismatch",
    r"Overload resolution ambiguity|None of the following (?:candidates|functions)",
    r"Expecting (?:'|an? |member)",
    r"SyntaxError|IndentationError|TabError",
    r"error TS\d{4}",
    r"Property '[^']+' does not exist on type",
    r"\bunexpected token\b",
    r"Compilation (?:failed|failure|error)",
    r"compiler error output",
    r"warnings found and -Werror specified",
)

# Wrappers that on their own only say "something in the build scripts broke".
_CONFIG_GENERIC = _rx(
    r"A problem occurred (?:evaluating|configuring) ",
    r"Failed to apply plugin",
    r"Could not create (?:task|service|an instance)",
    r"\b(?:Build|Settings) file '",
    r"\binvalid (?:flag|option)\b",
)

_RULES: tuple[tuple[str, Phrases], ...] = (
    ("configuration", _CONFIG_FIRST),
    ("ndk", _NDK),
    ("test_failure", _TEST),
    ("configuration", _CONFIG_SPECIFIC),
    ("library_unavailable", _LIBRARY),
    ("resource_missing", _RESOURCE),
    ("syntax", _SYNTAX),
    ("configuration", _CONFIG_GENERIC),
)

# When no phrase matches, the reporter still says something: a compiler only
# complains about code, a test runner only about tests.
_TOOL_DEFAULTS = {
    "javac": "syntax",
    "javadoc": "syntax",  # doc comments are source too
    "kotlinc": "syntax",
    "kapt": "syntax",
    "tsc": "syntax",
    "eslint": "syntax",
    "scalac": "syntax",
    "groovyc": "syntax",
    "pytest": "test_failure",
    "junit": "test_failure",
    "surefire": "test_failure",
    "jest": "test_failure",
    "ndk": "ndk",
    "cmake": "ndk",
    "ndk-build": "ndk",
    "clang": "ndk",
}


_TOOLCHAIN_MISSING = _rx(*TOOLCHAIN_MISSING)


def toolchain_missing(message: str) -> bool:
    """True when a message says a tool the build runs is not installed (see TOOLCHAIN_MISSING)."""
    text = message[:2000]
    return _TOOLCHAIN_MISSING.search(text)


@lru_cache(maxsize=4096)  # logs repeat their messages (one missing symbol, a hundred uses)
def classify(message: str, tool: str | None = None) -> str:
    """Return the taxonomy category of an error message.

    Args:
        message: the error text (a wrapper and its causes may be joined in it).
        tool: who reported it (javac, gradle, ...); decides only when no phrase does.

    Returns:
        One of `buildfixer.core.build_result.CATEGORIES`.
    """
    # Long messages (stack traces pasted into a cause) are cut: the decisive
    # phrase is near the start and regexes over megabytes would be slow.
    text = message[:2000]
    folded = fold(text)
    for category, phrases in _RULES:
        if phrases.search(text, folded):
            return category
    default = _TOOL_DEFAULTS.get((tool or "").lower(), "other")
    return default if default in CATEGORIES else "other"
