package com.example.invoice;

/** One line of an invoice: a SKU, how many units, and the price of one unit in cents. */
public record LineItem(String sku, int quantity, long unitPriceCents) {

    /** The line's amount before any discount. */
    public long totalCents() {
        return quantity * unitPriceCents;
    }
}
