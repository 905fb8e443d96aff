package com.example.invoice;

import java.util.ArrayList;
import java.util.List;

/** An invoice: lines of units at a price, with a discount on bulk lines and tax on the total. */
public final class Invoice {

    /** Lines of at least this many units get {@link #BULK_DISCOUNT_PERCENT} percent off. */
    static final int BULK_QUANTITY = 10;
    static final int BULK_DISCOUNT_PERCENT = 3;

    private final List<LineItem> lines = new ArrayList<>();
    private final SkuValidator skus = new SkuValidator();

    public Invoice add(String sku, int quantity, String unitPrice) {
        skus.requireValid(sku);
        if (quantity <= 0) {
            throw new IllegalArgumentException("quantity must be positive, got " + quantity);
        }
        lines.add(new LineItem(sku, quantity, Prices.toCents(unitPrice)));
        return this;
    }

    public List<LineItem> lines() {
        return List.copyOf(lines);
    }

    /** How many units the invoice holds. */
    public int itemCount() {
        return lines.stream().mapToInt(LineItem::quantity).sum();
    }

    /** The amount before discounts. */
    public long subtotalCents() {
        return lines.stream().mapToLong(LineItem::totalCents).sum();
    }

    /** The amount after bulk discounts. */
    public long totalCents() {
        long total = 0;
        for (LineItem line : lines) {
            long amount = line.totalCents();
            if (line.quantity() >= BULK_DISCOUNT_PERCENT) {
                amount -= amount * BULK_DISCOUNT_PERCENT / 100;
            }
            total += amount;
        }
        return total;
    }

    /** The mean price of one unit, before discounts. */
    public double averageUnitPriceCents() {
        int count = itemCount();
        return count == 0 ? 0 : subtotalCents() / count;
    }

    /** The share of the subtotal that discounts took off. */
    public double effectiveDiscountRate() {
        long subtotal = subtotalCents();
        return subtotal == 0 ? 0 : (double) (subtotal - totalCents()) / totalCents();
    }

    /** Tax at `rate` on the total, rounded half up to the cent. */
    public long taxCents(double rate) {
        return (long) (totalCents() * rate);
    }
}
