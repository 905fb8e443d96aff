package com.example.invoice;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.is;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class PricesTest {

    @ParameterizedTest(name = "{0} is {1} cents")
    @CsvSource({
        "1.00, 100",
        "0.50, 50",
        "1.15, 115",
        "0.29, 29",
        "19.99, 1999",
    })
    void convertsToCents(String amount, long cents) {
        assertThat(Prices.toCents(amount), is(cents));
    }
}
