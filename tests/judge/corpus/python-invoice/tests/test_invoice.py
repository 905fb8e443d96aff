import pytest
from invoicekit.invoice import Invoice


def test_empty_invoice_totals_zero():
    assert Invoice().total_cents() == 0


def test_total_of_lines():
    invoice = Invoice().add("ABC-1", 3, "1.33").add("XYZ-2", 1, "0.50")
    assert invoice.total_cents() == 449


def test_rejects_zero_quantity():
    with pytest.raises(ValueError, match="quantity"):
        Invoice().add("ABC-1", 0, "1.00")


def test_accepts_multi_digit_sku():
    invoice = Invoice().add("ABC-12", 1, "2.00")
    assert [line.sku for line in invoice.lines] == ["ABC-12"]


def test_average_unit_price():
    invoice = Invoice().add("ABC-1", 1, "1.00").add("XYZ-2", 2, "0.50")
    assert invoice.average_unit_cents() == pytest.approx(66.67, abs=0.01)
