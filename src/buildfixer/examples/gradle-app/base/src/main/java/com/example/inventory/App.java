package com.example.inventory;

/** Command-line entry point that prints a small sample inventory. */
public class App {
    public static Inventory sampleInventory() {
        Inventory inventory = new Inventory();
        inventory.add(new Item("A-100", "bolt", 40, 25));
        inventory.add(new Item("B-200", "nut", 100, 10));
        return inventory;
    }

    public static void main(String[] args) {
        Inventory inventory = sampleInventory();
        System.out.println(inventory.toJson());
        System.out.println("total value (cents): " + inventory.totalValueCents());
    }
}
