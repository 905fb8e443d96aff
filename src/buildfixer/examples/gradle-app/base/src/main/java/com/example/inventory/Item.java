package com.example.inventory;

/** One stock-keeping unit held in the inventory. */
public class Item {
    private final String sku;
    private final String name;
    private final int quantity;
    private final long priceCents;

    public Item(String sku, String name, int quantity, long priceCents) {
        if (quantity < 0) {
            throw new IllegalArgumentException("quantity must not be negative: " + quantity);
        }
        this.sku = sku;
        this.name = name;
        this.quantity = quantity;
        this.priceCents = priceCents;
    }

    public String getSku() {
        return sku;
    }

    public String getName() {
        return name;
    }

    public int getQuantity() {
        return quantity;
    }

    public long getPriceCents() {
        return priceCents;
    }

    public long totalValueCents() {
        return quantity * priceCents;
    }
}
