package com.example.invoice;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Test;

class InvoiceTest {

    @Test
    void totalOfThreeItems() {
        Invoice invoice = new Invoice().add("ABC-1", 3, "1.33");
        assertEquals(399, invoice.totalCents());
    }

    @Test
    void bulkLinesGetThreePercentOff() {
        Invoice invoice = new Invoice().add("ABC-1", 10, "1.00");
        assertEquals(970, invoice.totalCents());
    }

    @Test
    void rejectsZeroQuantity() {
        assertThrows(IllegalArgumentException.class, () -> new Invoice().add("ABC-1", 0, "1.00"));
    }

    @Test
    void acceptsMultiDigitSku() {
        Invoice invoice = new Invoice().add("ABC-12", 1, "2.00");
        assertEquals(1, invoice.lines().size());
        assertEquals("ABC-12", invoice.lines().get(0).sku());
    }
}
