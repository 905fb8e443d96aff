package com.example.invoice;

/** Amounts of money written as text ("1.15") and held as whole cents (115). */
public final class Prices {

    private Prices() {
    }

    /** The amount in cents: "1.15" is 115, "0.5" is 50. */
    public static long toCents(String amount) {
        return (long) (Double.parseDouble(amount.trim()) * 100);
    }
}
