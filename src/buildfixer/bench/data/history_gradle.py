"""History of the Gradle fixture repository `inventory` (see `history_format` for the format)."""

from __future__ import annotations

from buildfixer.bench.data.history_format import (
    Branch,
    FixtureCommit,
    Import,
    InstanceSpec,
    Patch,
    Replace,
    RepoSpec,
    Revert,
    revert_commit,
)

_ITEM = "src/main/java/com/example/inventory/Item.java"
_ITEM_VALUE = "    public long totalValueCents() {\n        return quantity * priceCents;\n    }\n"

INVENTORY = RepoSpec(
    name="inventory",
    build_system="gradle",
    start="2024-04-15T08:40:00+00:00",
    main=(
        FixtureCommit("Initial import: inventory with JSON export", "chen", (Import("gradle-app"),)),
        FixtureCommit(
            "Value bulk stock (100+ units) at a 10% discount",
            "bo",
            (
                Replace(
                    _ITEM,
                    _ITEM_VALUE,
                    "    public long totalValueCents() {\n        long gross = quantity * priceCents;\n"
                    "        // Bulk stock is valued with a 10% discount.\n"
                    "        return quantity >= 100 ? gross * 9 / 10 : gross;\n    }\n",
                ),
            ),
            "bulk-discount",
        ),
        FixtureCommit(
            "Keep totalValueCents undiscounted; the bulk discount gets its own method",
            "chen",
            (
                Replace(
                    _ITEM,
                    "    public long totalValueCents() {\n        long gross = quantity * priceCents;\n"
                    "        // Bulk stock is valued with a 10% discount.\n"
                    "        return quantity >= 100 ? gross * 9 / 10 : gross;\n    }\n",
                    _ITEM_VALUE + "\n    /** Value with a 10% discount on bulk stock (100+ units). */\n"
                    "    public long discountedValueCents() {\n        long gross = totalValueCents();\n"
                    "        return quantity >= 100 ? gross * 9 / 10 : gross;\n    }\n",
                ),
            ),
            "bulk-discount-fix",
        ),
        FixtureCommit(
            "Compile with the team's JDK 8",
            "bo",
            (Patch("gradle-app", "hardcoded-path"),),
            "jdk8-fork",
        ),
        FixtureCommit(
            "Stop forking javac from a local JDK 8: sourceCompatibility already targets 1.8",
            "ada",
            (Revert(),),
            "jdk8-fork-fix",
        ),
    ),
    branches=(
        Branch(
            "llm/inventory-add-location",
            (
                FixtureCommit(
                    "Track a storage location per item in Inventory.add",
                    "llm",
                    (Patch("gradle-app", "missing-parameter"),),
                    "add-location",
                ),
                revert_commit("Revert the storage location parameter", "add-location-fix", "llm"),
            ),
        ),
    ),
    instances=(
        InstanceSpec(
            "inventory-bulk-discount", "human", "test_failure", "bulk-discount", "bulk-discount-fix"
        ),
        InstanceSpec("inventory-jdk8-fork", "human", "configuration", "jdk8-fork", "jdk8-fork-fix"),
        InstanceSpec("inventory-add-location", "llm", "syntax", "add-location", "add-location-fix"),
    ),
)
