"""What the customer sees: their name on the invoice, how much of it is paid."""


def customer_label(name: str) -> str:
    """The name as printed: "ada  lovelace" is "Ada Lovelace"."""
    return " ".join(name.split()).capitalize()


def paid_ratio(paid_cents: int, total_cents: int) -> float:
    """The share of the total paid so far (1.0 for an empty invoice)."""
    if total_cents == 0:
        return 1.0
    return round(paid_cents / total_cents, 1)
