"""Invoices: lines of units at a price, and the text format they are read from."""

import re
from dataclasses import dataclass, field

from invoicekit.money import to_cents

# Three capital letters, a dash and a number: "ABC-1", "XYZ-42".
SKU = re.compile(r"[A-Z]{3}-\d")


class InvoiceFormatError(ValueError):
    """A line of an invoice file that cannot be read."""


def is_valid_sku(sku: str) -> bool:
    return SKU.fullmatch(sku) is not None


def require_valid_sku(sku: str) -> None:
    if not is_valid_sku(sku):
        raise ValueError(f"malformed SKU: {sku!r}")


@dataclass(frozen=True)
class Line:
    sku: str
    quantity: int
    unit_cents: int


@dataclass
class Invoice:
    lines: list = field(default_factory=list)

    def add(self, sku: str, quantity: int, price: str) -> "Invoice":
        require_valid_sku(sku)
        if quantity <= 0:
            raise ValueError(f"quantity must be positive, got {quantity}")
        self.lines.append(Line(sku, quantity, to_cents(price)))
        return self

    def item_count(self) -> int:
        return sum(line.quantity for line in self.lines)

    def total_cents(self) -> int:
        return sum(line.quantity * line.unit_cents for line in self.lines)

    def average_unit_cents(self) -> float:
        """The mean price of one unit."""
        count = self.item_count()
        return self.total_cents() // count if count else 0.0


def parse_line(text: str) -> Line:
    """A line written as "SKU;quantity;unit price", e.g. "ABC-1;2;0.50"."""
    fields = text.split(";")
    sku, quantity, price = fields[0].strip(), fields[1].strip(), fields[2].strip()
    try:
        count = int(quantity)
    except ValueError as exc:
        raise InvoiceFormatError(f"quantity is not a number: {quantity!r}") from exc
    return Line(sku, count, to_cents(price))
