package com.example.invoice;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.is;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class SkuValidatorTest {

    private final SkuValidator validator = new SkuValidator();

    @Test
    void acceptsSku() {
        assertThat(validator.isValid("ABC-1"), is(true));
    }

    @ParameterizedTest
    @ValueSource(strings = {"abc-1", "ABC1", "AB-1", "ABC-", ""})
    void rejectsMalformedSku(String sku) {
        assertThat(validator.isValid(sku), is(false));
    }
}
