package com.example.invoice;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class InvoiceParserTest {

    private final InvoiceParser parser = new InvoiceParser();

    @Test
    void parsesLine() {
        assertThat(parser.parseLine("ABC-1;2;0.50")).isEqualTo(new LineItem("ABC-1", 2, 50));
    }

    @Test
    void parsesEveryNonBlankLine() {
        assertThat(parser.parseLines("\nXYZ-9;1;3.00\n\n"))
                .singleElement()
                .isEqualTo(new LineItem("XYZ-9", 1, 300));
    }

    @Test
    void rejectsLineWithoutPrice() {
        assertThatThrownBy(() -> parser.parseLine("ABC-1;2"))
                .isInstanceOf(InvoiceFormatException.class)
                .hasMessageContaining("expected 3 fields");
    }

    @Test
    void rejectsQuantityThatIsNotANumber() {
        assertThatThrownBy(() -> parser.parseLine("ABC-1;two;0.50"))
                .isInstanceOf(InvoiceFormatException.class);
    }
}
