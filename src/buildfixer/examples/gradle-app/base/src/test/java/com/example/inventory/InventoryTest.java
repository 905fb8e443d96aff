package com.example.inventory;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNull;
import static org.junit.Assert.assertTrue;

import org.junit.Test;

public class InventoryTest {
    @Test
    public void totalValueSumsAllItems() {
        Inventory inventory = App.sampleInventory();
        assertEquals(40 * 25 + 100 * 10, inventory.totalValueCents());
    }

    @Test
    public void findBySkuReturnsNullForUnknownSku() {
        assertNull(App.sampleInventory().findBySku("Z-999"));
    }

    @Test
    public void toJsonContainsItemNames() {
        String json = App.sampleInventory().toJson();
        assertTrue(json, json.contains("\"name\":\"bolt\""));
    }

    @Test(expected = IllegalArgumentException.class)
    public void negativeQuantityIsRejected() {
        new Item("C-1", "washer", -1, 5);
    }
}
