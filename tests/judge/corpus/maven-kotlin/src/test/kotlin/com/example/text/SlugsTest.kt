package com.example.text

import kotlin.test.Test
import kotlin.test.assertEquals

class SlugsTest {
    @Test
    fun joinsWordsWithDashes() {
        assertEquals("kotlin-2-0-release", Slugs.slug("Kotlin 2.0 release"))
    }

    @Test
    fun dropsPunctuationAtBothEnds() {
        assertEquals("hello-world", Slugs.slug("¡Hello, World!"))
    }
}
