package com.example.invoice;

import java.util.List;

/** Reads invoice lines written as "SKU;quantity;unit price", e.g. "ABC-1;2;0.50". */
public final class InvoiceParser {

    public LineItem parseLine(String text) {
        String[] fields = text.split(";");
        String sku = fields[0].trim();
        int quantity;
        try {
            quantity = Integer.parseInt(fields[1].trim());
        } catch (NumberFormatException e) {
            throw new InvoiceFormatException("quantity is not a number: " + fields[1], e);
        }
        return new LineItem(sku, quantity, Prices.toCents(fields[2]));
    }

    public List<LineItem> parseLines(String text) {
        return text.lines().filter(line -> !line.isBlank()).map(this::parseLine).toList();
    }
}
