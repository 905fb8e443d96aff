"""Histories of the Python and npm fixture repositories (see `histories.py` for the format)."""

from __future__ import annotations

from buildfixer.bench.data.histories import (
    Branch,
    Commit,
    Import,
    InstanceSpec,
    Move,
    Patch,
    Replace,
    RepoSpec,
    Revert,
)

# --- semverkit: Python (examples/python-app) ---------------------------------------------------

_BUMP = "src/semverkit/bump.py"
_BUMP_TAIL = (
    '    if part == "major":\n        return f"{major + 1}.0.0"\n'
    '    if part == "minor":\n        return f"{major}.{minor + 1}.0"\n'
    '    return f"{major}.{minor}.{patch + 1}"\n'
)
_BUMP_CHAIN = (
    '    if part == "major":\n        return f"{major + 1}.0.0"\n'
    '    elif part == "minor"\n        return f"{major}.{minor + 1}.0"\n'
    '    else:\n        return f"{major}.{minor}.{patch + 1}"\n'
)

SEMVERKIT = RepoSpec(
    name="semverkit",
    build_system="python",
    start="2024-05-06T14:05:00+00:00",
    main=(
        Commit("Initial import: parse, compare and bump versions", "ada", (Import("python-app"),)),
        Commit(
            "bump: one if/elif chain for the parts",
            "chen",
            (Replace(_BUMP, _BUMP_TAIL, _BUMP_CHAIN),),
            "elif",
        ),
        Commit(
            "bump: add the missing colon after the minor branch",
            "chen",
            (Replace(_BUMP, 'elif part == "minor"\n', 'elif part == "minor":\n'),),
            "elif-fix",
        ),
        Commit(
            "latest: sort the version strings directly",
            "bo",
            (Patch("python-app", "failing-test"),),
            "lexical-latest",
        ),
        Commit(
            "latest: compare parsed versions, not strings (1.10.0 > 1.9.3)",
            "ada",
            (
                Replace(
                    _BUMP,
                    "    return sorted(text for _, text in valid)[-1]\n",
                    "    return max(valid)[1]  # Version order: 1.10.0 > 1.9.3\n",
                ),
            ),
            "lexical-latest-fix",
        ),
    ),
    branches=(
        Branch(
            "deps/packaging-23.7",
            (
                Commit(
                    "Pin packaging to 23.7",
                    "deps",
                    (Patch("python-app", "missing-version"),),
                    "pin-packaging",
                ),
                Commit('Revert "Pin packaging to 23.7"', "deps", (Revert(),), "pin-packaging-fix"),
            ),
        ),
        Branch(
            "llm/rename-policy-json",
            (
                Commit(
                    "Rename data/policy.json to data/release_policy.json",
                    "llm",
                    (Move("src/semverkit/data/policy.json", "src/semverkit/data/release_policy.json"),),
                    "rename-policy",
                ),
                Commit("Revert the policy.json rename", "llm", (Revert(),), "rename-policy-fix"),
            ),
        ),
    ),
    instances=(
        InstanceSpec("semverkit-elif-colon", "human", "syntax", "elif", "elif-fix"),
        InstanceSpec(
            "semverkit-lexical-latest", "human", "test_failure", "lexical-latest", "lexical-latest-fix"
        ),
        InstanceSpec(
            "semverkit-pin-packaging",
            "dependency",
            "library_unavailable",
            "pin-packaging",
            "pin-packaging-fix",
        ),
        InstanceSpec(
            "semverkit-rename-policy", "llm", "resource_missing", "rename-policy", "rename-policy-fix"
        ),
    ),
)

# --- cart: npm (examples/npm-app) ---------------------------------------------------------------

_CART = "src/cart.ts"

CART = RepoSpec(
    name="cart",
    build_system="npm",
    start="2024-06-10T10:30:00+00:00",
    main=(
        Commit("Initial import: shopping cart with discounts", "bo", (Import("npm-app"),)),
        Commit(
            "Cart.add: set the quantity of an existing line",
            "chen",
            (Patch("npm-app", "failing-test"),),
            "overwrite-quantity",
        ),
        Commit(
            "Cart.add: add to the quantity of an existing line again",
            "bo",
            (Revert(),),
            "overwrite-quantity-fix",
        ),
        Commit(
            "receipt(): show the line count and the currency",
            "ada",
            (Patch("npm-app", "syntax-error"),),
            "receipt-flag",
        ),
        Commit(
            "receipt(): formatCents takes a currency code, not a flag",
            "chen",
            (
                Replace(
                    _CART,
                    '    return lines + " item(s), total " + '
                    "formatCents(this.total(), this.items.length > 0);\n",
                    "    return `${lines} item(s), total ${formatCents(this.total())}`;\n",
                ),
            ),
            "receipt-flag-fix",
        ),
    ),
    branches=(
        Branch(
            "deps/typescript-5.4.9",
            (
                Commit(
                    "Bump typescript from 5.4.5 to 5.4.9",
                    "deps",
                    (Patch("npm-app", "missing-version"),),
                    "typescript-missing-version",
                ),
                Commit(
                    'Revert "Bump typescript from 5.4.5 to 5.4.9"',
                    "deps",
                    (Revert(),),
                    "typescript-missing-version-fix",
                ),
            ),
        ),
        Branch(
            "llm/rename-tsconfig-base",
            (
                Commit(
                    "Rename tsconfig.base.json to tsconfig.shared.json",
                    "llm",
                    (Move("tsconfig.base.json", "tsconfig.shared.json"),),
                    "rename-tsconfig",
                ),
                Commit("Revert the tsconfig.base.json rename", "llm", (Revert(),), "rename-tsconfig-fix"),
            ),
        ),
    ),
    instances=(
        InstanceSpec(
            "cart-overwrite-quantity", "human", "test_failure", "overwrite-quantity", "overwrite-quantity-fix"
        ),
        InstanceSpec("cart-receipt-flag", "human", "syntax", "receipt-flag", "receipt-flag-fix"),
        InstanceSpec(
            "cart-typescript-missing-version",
            "dependency",
            "library_unavailable",
            "typescript-missing-version",
            "typescript-missing-version-fix",
        ),
        InstanceSpec(
            "cart-rename-tsconfig", "llm", "resource_missing", "rename-tsconfig", "rename-tsconfig-fix"
        ),
    ),
)
