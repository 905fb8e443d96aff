"""Invoices, amounts of money and customer reports."""
