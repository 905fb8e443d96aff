import pytest
from invoicekit.money import to_cents


@pytest.mark.parametrize(
    ("amount", "cents"),
    [
        ("1.00", 100),
        ("0.50", 50),
        ("1.15", 115),
        ("0.29", 29),
        ("19.99", 1999),
    ],
)
def test_to_cents(amount, cents):
    assert to_cents(amount) == cents
