package com.example.inventory;

import com.google.gson.Gson;
import com.google.gson.GsonBuilder;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/** A list of items that can report its value and serialize itself to JSON. */
public class Inventory {
    private final List<Item> items = new ArrayList<>();

    public void add(Item item) {
        items.add(item);
    }

    public List<Item> getItems() {
        return Collections.unmodifiableList(items);
    }

    public long totalValueCents() {
        long total = 0;
        for (Item item : items) {
            total += item.totalValueCents();
        }
        return total;
    }

    public Item findBySku(String sku) {
        for (Item item : items) {
            if (item.getSku().equals(sku)) {
                return item;
            }
        }
        return null;
    }

    public String toJson() {
        Gson gson = new GsonBuilder().create();
        return gson.toJson(items);
    }
}
