package com.example.shapes

import kotlin.math.PI
import kotlin.test.Test
import kotlin.test.assertEquals

class DrawingTest {
    private val drawing = Drawing(listOf(Circle(1.0), Rectangle(2.0, 3.0)))

    @Test
    fun totalAreaAddsAllShapes() {
        assertEquals(PI + 6.0, drawing.totalArea(), 1e-9)
    }

    @Test
    fun largestIsTheRectangle() {
        assertEquals(Rectangle(2.0, 3.0), drawing.largest())
    }

    @Test
    fun summaryDescribesEachShape() {
        assertEquals("circle r=1.0; rectangle 2.0x3.0", drawing.summary())
    }
}
