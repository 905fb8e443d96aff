import pytest
from invoicekit.invoice import InvoiceFormatError, Line, parse_line


class TestParseLine:
    def test_parses_fields(self):
        assert parse_line("ABC-1;2;0.50") == Line("ABC-1", 2, 50)

    def test_rejects_missing_price(self):
        with pytest.raises(InvoiceFormatError, match="expected 3 fields"):
            parse_line("ABC-1;2")

    def test_rejects_bad_quantity(self):
        with pytest.raises(InvoiceFormatError):
            parse_line("ABC-1;two;0.50")
