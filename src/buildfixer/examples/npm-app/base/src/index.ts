export { Cart, LineItem } from "./cart";
export { Cents, formatCents, percentOf } from "./money";
