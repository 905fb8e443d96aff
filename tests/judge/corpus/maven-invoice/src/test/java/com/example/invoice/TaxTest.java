package com.example.invoice;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class TaxTest {

    @Test
    void taxOnSmallInvoice() {
        Invoice invoice = new Invoice().add("ABC-1", 1, "1.99");
        assertThat(invoice.taxCents(0.20)).isEqualTo(39);
    }

    @Test
    void taxIsRoundedHalfUp() {
        Invoice invoice = new Invoice().add("ABC-1", 1, "2.50");
        assertThat(invoice.taxCents(0.07)).isEqualTo(18);
    }
}
