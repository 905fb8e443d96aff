import { test } from "node:test";
import assert from "node:assert/strict";
import { Cart, formatCents } from "./index";

test("adding the same sku twice merges the lines", () => {
  const cart = new Cart();
  cart.add({ sku: "tea", unitPrice: 350, quantity: 1 });
  cart.add({ sku: "tea", unitPrice: 350, quantity: 2 });
  assert.equal(cart.subtotal(), 1050);
  assert.equal(cart.receipt(), "1 item(s), total 10.50 EUR");
});

test("discount is taken off the subtotal", () => {
  const cart = new Cart();
  cart.add({ sku: "mug", unitPrice: 1200, quantity: 1 });
  cart.applyDiscount(25);
  assert.equal(cart.total(), 900);
});

test("formatCents pads and signs", () => {
  assert.equal(formatCents(5), "0.05 EUR");
  assert.equal(formatCents(-1999, "USD"), "-19.99 USD");
});

test("non-positive quantities are rejected", () => {
  assert.throws(() => new Cart().add({ sku: "x", unitPrice: 1, quantity: 0 }), RangeError);
});
