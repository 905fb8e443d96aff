package com.example.text

import kotlin.test.Test
import kotlin.test.assertEquals
import kotlin.test.assertFailsWith

class PercentTest {
    @Test
    fun parsesPercentSign() {
        assertEquals(42, parsePercent(" 42 %"))
    }

    @Test
    fun rejectsValuesAboveOneHundred() {
        assertFailsWith<IllegalArgumentException> { parsePercent("120%") }
    }
}
