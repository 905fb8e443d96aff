import { Cents, formatCents, percentOf } from "./money";

export interface LineItem {
  sku: string;
  unitPrice: Cents;
  quantity: number;
}

/** A shopping cart with an optional percentage discount. */
export class Cart {
  private readonly items: LineItem[] = [];
  private discountPercent = 0;

  add(item: LineItem): void {
    if (item.quantity <= 0) {
      throw new RangeError(`quantity must be positive, got ${item.quantity}`);
    }
    const existing = this.items.find((i) => i.sku === item.sku);
    if (existing) {
      existing.quantity += item.quantity;
    } else {
      this.items.push({ ...item });
    }
  }

  applyDiscount(percent: number): void {
    this.discountPercent = percent;
  }

  subtotal(): Cents {
    return this.items.reduce((sum, i) => sum + i.unitPrice * i.quantity, 0);
  }

  total(): Cents {
    return this.subtotal() - percentOf(this.subtotal(), this.discountPercent);
  }

  receipt(): string {
    return `${this.items.length} item(s), total ${formatCents(this.total())}`;
  }
}
