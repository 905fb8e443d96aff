"""History of the npm fixture repository `cart` (see `history_format` for the format)."""

from __future__ import annotations

from buildfixer.bench.data.history_format import (
    Branch,
    FixtureCommit,
    Import,
    InstanceSpec,
    Move,
    Patch,
    Replace,
    RepoSpec,
    Revert,
)

_CART = "src/cart.ts"

CART = RepoSpec(
    name="cart",
    build_system="npm",
    start="2024-06-10T10:30:00+00:00",
    main=(
        FixtureCommit("Initial import: shopping cart with discounts", "bo", (Import("npm-app"),)),
        FixtureCommit(
            "Cart.add: set the quantity of an existing line",
            "chen",
            (Patch("npm-app", "failing-test"),),
            "overwrite-quantity",
        ),
        FixtureCommit(
            "Cart.add: add to the quantity of an existing line again",
            "bo",
            (Revert(),),
            "overwrite-quantity-fix",
        ),
        FixtureCommit(
            "receipt(): show the line count and the currency",
            "ada",
            (Patch("npm-app", "syntax-error"),),
            "receipt-flag",
        ),
        FixtureCommit(
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
                FixtureCommit(
                    "Bump typescript from 5.4.5 to 5.4.9",
                    "deps",
                    (Patch("npm-app", "missing-version"),),
                    "typescript-missing-version",
                ),
                FixtureCommit(
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
                FixtureCommit(
                    "Rename tsconfig.base.json to tsconfig.shared.json",
                    "llm",
                    (Move("tsconfig.base.json", "tsconfig.shared.json"),),
                    "rename-tsconfig",
                ),
                FixtureCommit(
                    "Revert the tsconfig.base.json rename", "llm", (Revert(),), "rename-tsconfig-fix"
                ),
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
