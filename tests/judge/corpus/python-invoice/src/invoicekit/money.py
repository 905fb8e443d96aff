"""Amounts of money written as text ("1.15") and held as whole cents (115)."""


def to_cents(amount: str) -> int:
    """The amount in cents: "1.15" is 115, "0.5" is 50."""
    return int(float(amount) * 100)
