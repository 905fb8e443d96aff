package com.example.invoice;

/** A line of an invoice file that cannot be read. */
public class InvoiceFormatException extends RuntimeException {

    public InvoiceFormatException(String message) {
        super(message);
    }

    public InvoiceFormatException(String message, Throwable cause) {
        super(message, cause);
    }
}
