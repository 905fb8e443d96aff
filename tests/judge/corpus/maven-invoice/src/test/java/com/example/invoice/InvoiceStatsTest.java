package com.example.invoice;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.closeTo;
import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

class InvoiceStatsTest {

    @Test
    void averageUnitPrice() {
        Invoice invoice = new Invoice().add("ABC-1", 1, "1.00").add("XYZ-2", 2, "0.50");
        assertThat(invoice.averageUnitPriceCents(), closeTo(66.67, 0.01));
    }

    @Test
    void effectiveDiscountRate() {
        Invoice invoice = new Invoice().add("ABC-1", 10, "1.00").add("XYZ-2", 2, "0.50");
        assertEquals(0.0273, invoice.effectiveDiscountRate(), 1e-4);
    }
}
