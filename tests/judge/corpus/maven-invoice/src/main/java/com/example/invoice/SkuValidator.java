package com.example.invoice;

import java.util.regex.Pattern;

/** Stock keeping units look like "ABC-1" or "XYZ-42": three capital letters, a dash, a number. */
public final class SkuValidator {

    private static final Pattern SKU = Pattern.compile("[A-Z]{3}-[0-9]");

    public boolean isValid(String sku) {
        return sku != null && SKU.matcher(sku).matches();
    }

    public void requireValid(String sku) {
        if (!isValid(sku)) {
            throw new IllegalArgumentException("malformed SKU: " + sku);
        }
    }
}
